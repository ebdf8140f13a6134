"""Shared helpers of the financial-assistant sample tests: where the sample lives, its modules
loaded under private names, and small readers of run reports.

The sample folder is not a package (`financial-assistant` has a hyphen), and its `tools.py` /
`graders.py` have names other tests' agents use too, so each module is loaded from its file
under a `sample_fa_*` name. `tools.py` and `graders.py` import `convfinqa` from their folder,
which is therefore imported under its own name (it is unique to the sample).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from holodeck_lsp.runner.agent_code.grader_import import clear_grader_cache
from holodeck_lsp.schema.results import MetricResult, TestReport, TurnResult

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DIR = REPO_ROOT / "sample" / "financial-assistant"
SCRIPTS_DIR = SAMPLE_DIR / "scripts"
AGENT_PATH = SAMPLE_DIR / "agent.yaml"
SUBSET_PATH = SAMPLE_DIR / "data" / "convfinqa_subset.json"
DOCUMENTS_DIR = SAMPLE_DIR / "data" / "documents"
CASSETTE_PATH = SAMPLE_DIR / "cassettes" / "oracle.json"

GRADER_METRIC = "turn_program_equivalence"
NUMERIC_METRIC = "numeric"
#: The G-Eval metric, graded offline from the judgements recorded in the cassette.
GEVAL_METRIC = "Direct"

#: The committed cassette was recorded against the oracle with these settings.
CASSETTE_MISTAKES = 0.2
CASSETTE_SEED = 1


def _load(name: str, path: Path) -> ModuleType:
    """Import `path` as module `name`, with the sample folder on sys.path only meanwhile (the
    scripts insert it themselves; that is undone too, so no later test imports the sample's
    `tools` or `graders` by accident)."""
    saved = list(sys.path)
    sys.path.insert(0, str(SAMPLE_DIR))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None, path
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while it executes
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        return module
    finally:
        sys.path[:] = saved


@cache
def convfinqa() -> ModuleType:
    _load("convfinqa", SAMPLE_DIR / "convfinqa.py")
    return sys.modules["convfinqa"]


@cache
def sample_tools() -> ModuleType:
    convfinqa()
    return _load("sample_fa_tools", SAMPLE_DIR / "tools.py")


@cache
def sample_graders() -> ModuleType:
    convfinqa()
    return _load("sample_fa_graders", SAMPLE_DIR / "graders.py")


@cache
def converter() -> ModuleType:
    convfinqa()
    return _load("sample_fa_convert_convfinqa", SCRIPTS_DIR / "convert_convfinqa.py")


@cache
def oracle_server() -> ModuleType:
    convfinqa()
    return _load("sample_fa_oracle_server", SCRIPTS_DIR / "oracle_server.py")


#: Why a test that needs the whole ConvFinQA dev split skips (docs/importing.md says where to
#: get the dataset).
NO_CONVFINQA = (
    "the ConvFinQA dev split is not given: set CONVFINQA_SOURCE to its JSON file "
    "(docs/importing.md, ConvFinQA)"
)


def convfinqa_source() -> Path | None:
    """The ConvFinQA dev file $CONVFINQA_SOURCE names, if it is there."""
    candidate = os.environ.get("CONVFINQA_SOURCE")
    return Path(candidate) if candidate and Path(candidate).is_file() else None


def committed_subset() -> dict[str, Any]:
    subset: dict[str, Any] = json.loads(SUBSET_PATH.read_text(encoding="utf-8"))
    return subset


def _forget_graders_module() -> None:
    clear_grader_cache()
    sys.modules.pop("graders", None)


@contextmanager
def grader_imports_isolated() -> Iterator[None]:
    """An in-process run imports the agent's `graders.py` as module `graders` and leaves its
    folder on sys.path. Another test's agent may have done the same with its own `graders`,
    which the runner then refuses (a module of that name from elsewhere), so a run here starts
    and ends without one."""
    path = list(sys.path)
    _forget_graders_module()
    try:
        yield
    finally:
        _forget_graders_module()
        sys.path[:] = path


# -- copies of the sample -------------------------------------------------------------------


def copy_sample(tmp_path: Path) -> Path:
    """The whole sample folder (tools, graders, data, cassette) in tmp_path."""
    folder = tmp_path / "financial-assistant"
    shutil.copytree(SAMPLE_DIR, folder, ignore=shutil.ignore_patterns("__pycache__", ".holodeck"))
    return folder


def switch_model(agent: Path, provider: str) -> str:
    """Replace the active `model:` line with the commented alternative for `provider` (the
    README's way to switch) and return the new line."""
    lines = agent.read_text(encoding="utf-8").splitlines(keepends=True)
    [active] = [i for i, line in enumerate(lines) if line.startswith("model:")]
    [alternative] = [
        line
        for line in lines[active + 1 : active + 3]
        if line.startswith("# model:") and f"provider: {provider}" in line
    ]
    lines[active] = alternative.removeprefix("# ")
    agent.write_text("".join(lines), encoding="utf-8")
    return lines[active]


# -- reports ---------------------------------------------------------------------------------


def read_report(path: Path) -> TestReport:
    return TestReport.model_validate_json(path.read_text(encoding="utf-8"))


def turns_of(report: TestReport) -> list[tuple[str, TurnResult]]:
    """Every turn of the report with its case's name, in file order."""
    return [(case.test_name or "", turn) for case in report.results for turn in case.turns or []]


def turn_verdicts(report: TestReport) -> dict[str, list[bool]]:
    return {case.test_name or "": [t.passed for t in case.turns or []] for case in report.results}


def metric(turn: TurnResult, name: str) -> MetricResult:
    [found] = [m for m in turn.metric_results if m.metric_name == name]
    return found


def program_of(turn: TurnResult, subset: dict[str, Any], case: str) -> str:
    """The turn's ConvFinQA `turn_program`, from the subset (the report does not carry it)."""
    [dialogue] = [d for d in subset["dialogues"] if d["test_case"]["name"] == case]
    program: str = dialogue["dialogue"]["turn_program"][turn.turn_index]
    return program


def has_steps(program: str) -> bool:
    return bool(convfinqa().parse_program(program).steps)
