"""The marked corpus: tests/corpus/<name>/agent.yaml files that mix several faults, with a
marker comment on every line where a diagnostic must start:

    ground_truth: 25587  # <- error HD102
    input: "x"  # <- error HD102 error HD111

The first marker of a line is the `# <- error TAG` / `# <- warning TAG` form that
`shared/tools/lsp_probe.py coverage` reads; more `SEVERITY CODE` pairs may follow it. `warning`
stands for Warning or Information, as in lsp_probe. Markers in other YAML files of a corpus
directory (a `test_cases_file` include) are about diagnostics reported in that file.

Each file must give exactly the marked (line, severity, code) set: nothing missing, nothing
extra. Files without markers must give no diagnostics at all. A directory holding a `TRUSTED`
file is loaded in trusted mode (graders really imported).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from holodeck_lsp.checker.diagnostics import Severity
from holodeck_lsp.checker.loader import LoadOptions, load_agent_file
from holodeck_lsp.schema.codes import Code

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
AGENTS = sorted(CORPUS.glob("*/agent.yaml"))
#: lsp_probe's marker (first one of a line) and the pairs that may follow it.
MARKER = re.compile(r"#\s*<-((?:\s+(?:error|warning)\s+\w+)+)")
PAIR = re.compile(r"(error|warning)\s+(\w+)")
#: Codes the corpus need not show: an unreadable file, an invalid global config, a crash, a
#: ${VAR} value that changes the YAML (the corpus loads with an empty environment; see
#: tests/checker/test_upstream_edges.py) and HD206 (deepeval not installed: it depends on the
#: environment, and the tests install it).
NOT_IN_CORPUS = {
    Code.FILE_UNREADABLE,
    Code.GLOBAL_CONFIG_INVALID,
    Code.INTERNAL_ERROR,
    Code.ENV_VALUE_CHANGES_YAML,
    Code.JUDGES_EXTRA_MISSING,
}

Expected = set[tuple[str, int, str, str]]  # (file name, 1-based line, severity, code)


def markers(path: Path, base: Path) -> Expected:
    found: Expected = set()
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = MARKER.search(text)
        if match is None:
            continue
        for severity, code in PAIR.findall(match.group(1)):
            found.add((path.relative_to(base).as_posix(), number, severity, code))
    return found


def expected_for(directory: Path) -> Expected:
    found: Expected = set()
    for path in sorted(directory.rglob("*.y*ml")):
        found |= markers(path, directory)
    return found


def actual_for(agent: Path) -> tuple[Expected, list[str]]:
    directory = agent.parent
    trusted = (directory / "TRUSTED").exists()
    options = LoadOptions(trusted=trusted, env={}, home=directory / ".no-home")
    result = load_agent_file(agent, options=options)
    found: Expected = set()
    shown: list[str] = []
    for d in result.diagnostics:
        severity = "error" if d.severity is Severity.ERROR else "warning"
        name = Path(d.file).resolve().relative_to(directory.resolve()).as_posix()
        found.add((name, d.range.start.line + 1, severity, d.code.value))
        shown.append(f"{name}:{d.range.start.line + 1} {severity} {d.code.value} {d.message}")
    return found, shown


def test_the_corpus_is_there() -> None:
    assert 10 <= len(AGENTS) <= 20, AGENTS
    assert any(not expected_for(agent.parent) for agent in AGENTS), "no valid corpus file"


@pytest.mark.parametrize("agent", AGENTS, ids=[agent.parent.name for agent in AGENTS])
def test_corpus_file_gives_exactly_the_marked_diagnostics(agent: Path) -> None:
    expected = expected_for(agent.parent)
    actual, shown = actual_for(agent)
    missing = sorted(expected - actual)
    extra = sorted(actual - expected)
    assert not missing and not extra, (
        f"missing: {missing}\nextra: {extra}\nall diagnostics:\n" + "\n".join(shown)
    )


def test_valid_corpus_files_give_a_validated_agent() -> None:
    for agent in AGENTS:
        if expected_for(agent.parent):
            continue
        result = load_agent_file(agent, options=LoadOptions(env={}, home=agent.parent / ".no"))
        assert result.diagnostics == [] and result.agent is not None, agent


def test_the_corpus_covers_every_code() -> None:
    covered = {code for agent in AGENTS for (_, _, _, code) in expected_for(agent.parent)}
    wanted = {code.value for code in Code} - {code.value for code in NOT_IN_CORPUS}
    assert sorted(wanted - covered) == []
    assert sorted(covered - {code.value for code in Code}) == []  # no typos in markers


@pytest.mark.parametrize("agent", AGENTS, ids=[agent.parent.name for agent in AGENTS])
def test_no_fault_is_reported_twice(agent: Path) -> None:
    # Some rules are checked both by the models and on the raw data; one finding, one entry.
    directory = agent.parent
    options = LoadOptions(
        trusted=(directory / "TRUSTED").exists(), env={}, home=directory / ".no-home"
    )
    result = load_agent_file(agent, options=options)
    places = [(d.file, d.range, d.code) for d in result.diagnostics]
    assert len(places) == len(set(places))
