"""Loading an edited agent.yaml from the previous load's result (incremental parse, re-used
case models) gives the same diagnostics, agent and document as loading it from scratch."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from holodeck_lsp.checker.loader import LoadOptions, LoadResult, load_agent_text
from holodeck_lsp.schema.codes import Code
from tests.checker.test_incremental_parse import assert_same, edits

AGENT = textwrap.dedent(
    """\
    name: "loads"
    model:
      provider: openai
      name: gpt-4o-mini
    instructions:
      inline: Be brief.
    tools:
      - name: subtract
        type: function
        description: Return a minus b.
        file: tools.py
        function: subtract
    test_cases:
      - name: "valid"
        turns:
          - input: "what was it in 2007?"
            ground_truth: "60.94"
            expected_tools:
              - name: subtract
                args:
                  a: {fuzzy: "60.94"}
                  c: 1
      - name: "unknown key"
        input: hello
        colour: blue
      - name: "undeclared tool"
        input: hello
        expected_tools: [divide]
      - name: "misspelt matcher"
        input: hello
        expected_tools:
          - name: subtract
            args: {a: {fuzy: "1"}}
      - name: "no input"
        ground_truth: "1"
      - name: "clean"
        input: hello
        expected_tools:
          - name: subtract
            args: {a: 1}
      - name: "last"
        input: hello
        input: again
    """
)


@pytest.fixture(scope="module")
def agent_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("incremental")
    (folder / "tools.py").write_text(
        "def subtract(a: float, b: float) -> float:\n    return a - b\n", encoding="utf-8"
    )
    return folder / "agent.yaml"


def load(text: str, path: Path, previous: LoadResult | None = None) -> LoadResult:
    options = LoadOptions(env={}, home=path.parent / "home")
    return load_agent_text(text, path, options, previous)


def assert_same_load(result: LoadResult, full: LoadResult) -> None:
    assert result.diagnostics == full.diagnostics
    assert result.agent == full.agent
    assert result.dependencies == full.dependencies
    assert (result.document is None) == (full.document is None)
    if result.document is not None and full.document is not None:
        assert_same(result.document, full.document)


def test_the_agent_reports_what_the_loads_are_compared_on(agent_path: Path) -> None:
    codes = {d.code for d in load(AGENT, agent_path).diagnostics}
    assert {
        Code.UNKNOWN_KEY,
        Code.UNDECLARED_TOOL,
        Code.MISSPELT_MATCHER,
        Code.UNKNOWN_TOOL_PARAMETER,
        Code.NO_INPUT_OR_TURNS,
        Code.DUPLICATE_KEY,
    } <= codes


def test_edits_loaded_from_the_previous_result(agent_path: Path) -> None:
    result, text = load(AGENT, agent_path), AGENT
    steps = (
        ('"valid"', '"still valid"'),
        ("colour: blue", "ground_truth: blue"),  # an error fixed
        ("expected_tools: [divide]", "expected_tools: [subtract, divide]"),
        ('ground_truth: "1"', 'ground_truth: "1"\n    input: now'),  # no error left here
        ('"what was it in 2007?"', '"what was it in 2007?"\n        surprise: 1'),  # a new one
        ('  - name: "last"', '  - name: "inserted"\n    input: x\n  - name: "last"'),
    )
    for old, new in steps:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
        result = load(text, agent_path, result)
        assert_same_load(result, load(text, agent_path))


def test_unchanged_cases_keep_their_models(agent_path: Path) -> None:
    valid = (
        AGENT.replace("colour: blue", "ground_truth: blue")
        .replace('    ground_truth: "1"', '    input: "1"')
        .replace("{fuzy:", "{fuzzy:")  # HD125 is an error: no agent
    )
    first = load(valid, agent_path)
    second = load(valid.replace('"valid"', '"renamed"'), agent_path, first)
    assert first.agent is not None and second.agent is not None  # only warnings
    assert first.agent.test_cases is not None and second.agent.test_cases is not None
    assert second.agent.test_cases[0].name == "renamed"
    assert second.agent.test_cases[0] is not first.agent.test_cases[0]
    assert all(
        later is earlier
        for later, earlier in zip(
            second.agent.test_cases[1:], first.agent.test_cases[1:], strict=True
        )
    )


def test_lints_follow_the_tools_of_unchanged_cases(tmp_path: Path) -> None:
    """A case's lints depend on the declared tools and their signatures too: an unchanged case
    without findings is checked again when those change."""
    path = tmp_path / "agent.yaml"
    tools = tmp_path / "tools.py"
    tools.write_text("def subtract(a: float, b: float) -> float:\n    return a - b\n")
    edited = AGENT.replace("input: hello\n    colour", "input: hi\n    colour")
    first = load(AGENT, path)
    tools.write_text("def subtract(x: float, y: float) -> float:\n    return x - y\n")
    second = load(edited, path, first)
    assert_same_load(second, load(edited, path))
    flagged = {d.test_case for d in second.diagnostics if d.code is Code.UNKNOWN_TOOL_PARAMETER}
    assert "clean" in flagged
    renamed = AGENT.replace("  - name: subtract\n    type", "  - name: minus\n    type")
    third = load(renamed, path, second)
    assert_same_load(third, load(renamed, path))
    assert "clean" in {d.test_case for d in third.diagnostics if d.code is Code.UNDECLARED_TOOL}


_EXAMPLES = os.environ.get("HOLODECK_FUZZ_EXAMPLES")


@settings(
    max_examples=int(_EXAMPLES or 120),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=_EXAMPLES is None,
    database=None,
)
@given(st.data())
def test_random_edit_chains_load_as_in_full(agent_path: Path, data: st.DataObject) -> None:
    text = AGENT
    result = load(text, agent_path)
    for _ in range(data.draw(st.integers(1, 4))):
        text = data.draw(edits(text))
        result = load(text, agent_path, result)
        assert_same_load(result, load(text, agent_path))
