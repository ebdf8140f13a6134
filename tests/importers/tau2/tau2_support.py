"""Shared by the τ² importer tests and the parity test: the committed fixture (a trimmed τ²
checkout, MIT, NOTICE beside it), a suite imported from it into a temporary folder, and the
suite's own modules (tools, grader) loaded from there as holodeck-lsp loads them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from holodeck_lsp.engine.code_graders import GraderContext
from holodeck_lsp.importers.tau2.importer import ImportedSuite, Selection, import_tau2
from holodeck_lsp.schema.results import ToolInvocation

FIXTURE = Path(__file__).resolve().parent.parent / "tau2_fixture"


def write_suite(suite: ImportedSuite, folder: Path) -> Path:
    for name, data in suite.files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return folder


def imported(folder: Path, selection: Selection | None = None) -> Path:
    """The fixture imported into `folder` (every domain it has whole)."""
    return write_suite(import_tau2(FIXTURE, selection or Selection()), folder)


def suite_module(folder: Path, name: str) -> Any:
    """`name`.py of the suite's folder, under a name private to that folder."""
    unique = f"_test_{name}_{abs(hash(folder)):x}"
    if unique not in sys.modules:
        spec = importlib.util.spec_from_file_location(unique, folder / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[unique] = module
        spec.loader.exec_module(module)
    return sys.modules[unique]


def end_context(case_name: str, calls: list[ToolInvocation], last: str = "") -> GraderContext:
    """What an `at_end` code grader is given: every call of the conversation."""
    return GraderContext(
        turn_input="",
        agent_response=last,
        ground_truth=None,
        tool_invocations=tuple(calls),
        retrieval_context=None,
        turn_index=0,
        test_case_name=case_name,
        turn_config={},
    )


def run_calls(tools: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[ToolInvocation]:
    """Each call through the suite's tool function, as a backend makes it (inside a case)."""
    return [
        ToolInvocation(name=name, args=args, result=getattr(tools, name)(**args))
        for name, args in calls
    ]
