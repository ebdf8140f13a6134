"""The hostile corpus's untrusted-code family (issue 35): generated agent files naming code in
every place a file can (an agent metric, a case's, a turn's, a function tool's `file:`) and
found every way a module can be (beside the agent, in a package whose `__init__` runs first,
in a nested package, a namespace package, or only through PYTHONPATH).
Each module leaves a marker when imported. Checking them — in-process as `check` does, as the
language server's loads do through server/trust.py, and with the real console script — leaves
no marker; `check --trust` leaves every grader's (the control: the code is live)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from holodeck_lsp.checker.loader import load_agent_file
from holodeck_lsp.server.features.diagnostics.analysis import analyse
from holodeck_lsp.server.settings import Settings
from holodeck_lsp.server.trust import UNTRUSTED_MESSAGE, code_may_run, load_options, refusal
from tests.hostile.untrusted_code import CodeCase, code_cases, write_code_case
from tests.server.lsp_client import installed_server


@dataclass(frozen=True)
class Corpus:
    folder: Path
    site: Path
    markers: Path
    cases: list[CodeCase]
    agents: list[Path]

    def left(self) -> list[str]:
        return sorted(p.name for p in self.markers.iterdir())

    def clear(self) -> None:
        for marker in self.markers.iterdir():
            marker.unlink()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    base = tmp_path_factory.mktemp("untrusted-code")
    folder, site, markers = base / "workspace", base / "site", base / "markers"
    for made in (folder, site, markers):
        made.mkdir()
    cases = code_cases(markers)
    agents = [write_code_case(case, folder, site) for case in cases]
    return Corpus(folder, site, markers, cases, agents)


def test_the_generator_covers_every_place_and_kind(corpus: Corpus) -> None:
    assert len(corpus.cases) == 3 * 5 + 2  # metric places × module kinds, tool files
    assert {marker.split(".")[1] for case in corpus.cases for marker in case.markers} >= {
        "pkg_init",
        "outer_init",
        "inner_init",
        "path_only",
    }


def test_checking_imports_nothing(corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(corpus.site))  # as PYTHONPATH puts it on sys.path
    corpus.clear()
    for agent in corpus.agents:
        result = load_agent_file(agent)
        # Found (statically) and nothing wrong: the code was there to import, and was not.
        assert result.errors == [], (agent.name, [d.message for d in result.errors])
    assert corpus.left() == []


def test_the_servers_loads_import_nothing_untrusted(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(corpus.site))
    corpus.clear()
    untrusted = Settings()
    assert not code_may_run(untrusted) and not code_may_run(None)
    assert refusal(untrusted) == UNTRUSTED_MESSAGE and "Trust this workspace" in UNTRUSTED_MESSAGE
    for wanted in (False, True):
        assert load_options(untrusted, import_graders=wanted).trusted is False
    assert load_options(Settings(trusted=True), import_graders=True).trusted is True
    assert load_options(Settings(trusted=True)).trusted is False  # only when asked
    for agent in corpus.agents:
        analysis = analyse(agent, None, None, load_options(untrusted, import_graders=True))
        assert not analysis.graders_imported
    assert corpus.left() == []


def _check(corpus: Corpus, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [installed_server(), "check", *flags, str(corpus.folder)],
        env={**os.environ, "PYTHONPATH": str(corpus.site)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow  # the console script (and, trusted, a child per file)
def test_the_console_script_imports_nothing_without_trust(corpus: Corpus) -> None:
    corpus.clear()
    done = _check(corpus)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"in {len(corpus.agents)} files" in done.stdout
    assert corpus.left() == []


@pytest.mark.slow  # the console script (and, trusted, a child per file)
def test_trust_imports_every_generated_grader(corpus: Corpus) -> None:
    """The control: with `--trust` each grader module (and each package above it) runs."""
    corpus.clear()
    done = _check(corpus, "--trust")
    assert done.returncode == 0, done.stdout + done.stderr
    assert corpus.left() == sorted(marker for case in corpus.cases for marker in case.markers)
    corpus.clear()
