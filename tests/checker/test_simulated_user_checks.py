"""`simulated_user:` as the checker sees it (config/simulated_user_checks.py and the schema of
schema/simulated_user.py): HD160 where the key is, in the agent file or its included
`test_cases_file`, a warning unless holodeck-lsp.yaml sets `upstream_loadable: true`; an
`at_turn` the conversation never reaches; the schema's own faults at their fields."""

from __future__ import annotations

from pathlib import Path

from holodeck_lsp.checker.diagnostics import Severity
from holodeck_lsp.checker.loader import LoadOptions, LoadResult, load_agent_file
from holodeck_lsp.schema.simulated_user import DEFAULT_STOP_MARKERS

HEADER = """\
name: shop
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: You help customers.
"""

CASE = """\
  - name: exchange
    turns:
      - input: "Hi, I need help with an order."
    simulated_user:
      instructions: You are Yusuf.
      model: {provider: anthropic, name: claude-haiku-4-5}
      max_turns: 2
      at_turn:
        - turn: 3
          expected_tools: [lookup]
"""


def _load(tmp_path: Path, text: str, **files: str) -> LoadResult:
    (tmp_path / "agent.yaml").write_text(text, encoding="utf-8")
    for name, content in files.items():
        (tmp_path / name.replace("_yaml", ".yaml").replace("_", "-")).write_text(
            content, encoding="utf-8"
        )
    options = LoadOptions(env={}, home=tmp_path / "home", lints=False)
    return load_agent_file(tmp_path / "agent.yaml", options=options)


def _found(result: LoadResult) -> list[tuple[str, str, int, int, Severity]]:
    return [
        (Path(d.file).name, d.code.value, d.range.start.line, d.range.start.character, d.severity)
        for d in result.diagnostics
    ]


def test_a_valid_case_loads_with_the_upstream_warning(tmp_path: Path) -> None:
    result = _load(tmp_path, HEADER + "test_cases:\n" + CASE)
    assert _found(result) == [("agent.yaml", "HD160", 10, 4, Severity.WARNING)]
    assert "upstream_loadable: true" in result.diagnostics[0].message
    assert result.agent is not None and result.agent.test_cases is not None
    simulated = result.agent.test_cases[0].simulated_user
    assert simulated is not None and simulated.max_turns == 2
    assert simulated.stop_markers == list(DEFAULT_STOP_MARKERS)
    assert simulated.model.provider.value == "anthropic"


def test_the_setting_makes_it_an_error(tmp_path: Path) -> None:
    result = _load(
        tmp_path, HEADER + "test_cases:\n" + CASE, holodeck_lsp_yaml="upstream_loadable: true\n"
    )
    assert _found(result) == [("agent.yaml", "HD160", 10, 4, Severity.ERROR)]
    assert result.agent is None
    assert tmp_path / "holodeck-lsp.yaml" in result.dependencies


def test_a_setting_that_is_not_a_boolean_is_named(tmp_path: Path) -> None:
    result = _load(
        tmp_path, HEADER + "test_cases:\n" + CASE, holodeck_lsp_yaml="upstream_loadable: yes!\n"
    )
    [diagnostic] = result.diagnostics
    assert diagnostic.severity is Severity.WARNING
    assert "`upstream_loadable` must be true or false" in diagnostic.message


def test_in_an_included_file_it_is_reported_there(tmp_path: Path) -> None:
    text = HEADER + "test_cases_file: cases.yaml\n"
    result = _load(tmp_path, text, cases_yaml="test_cases:\n" + CASE)
    assert _found(result) == [("cases.yaml", "HD160", 4, 4, Severity.WARNING)]
    assert result.agent is not None and result.agent.test_cases is not None
    assert result.agent.test_cases[0].simulated_user is not None


def test_a_turn_never_reached(tmp_path: Path) -> None:
    case = CASE.replace("turn: 3", "turn: 4")
    result = _load(tmp_path, HEADER + "test_cases:\n" + case)
    unreachable = [d for d in result.diagnostics if d.code.value == "HD104"]
    [diagnostic] = unreachable
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (15, 16)
    assert "at most 3 agent turns (1 scripted + max_turns 2)" in diagnostic.message
    assert diagnostic.field_path == "test_cases[0].simulated_user.at_turn[0].turn"


def test_schema_faults_at_their_fields(tmp_path: Path) -> None:
    case = (
        CASE.replace("You are Yusuf.", '" "')
        .replace("provider: anthropic", "provider: antrhopic")
        .replace("max_turns: 2", "max_turns: 0")
        + "      stop_markers: []\n"
        + "      at_end: {communicate_info: [x], goal: y}\n"
    )
    result = _load(tmp_path, HEADER + "test_cases:\n" + case)
    by_path = {d.field_path: d.code.value for d in result.diagnostics if d.code.value != "HD160"}
    assert by_path == {
        "test_cases[0].simulated_user.instructions": "HD107",
        "test_cases[0].simulated_user.model.provider": "HD103",
        "test_cases[0].simulated_user.max_turns": "HD104",
        "test_cases[0].simulated_user.stop_markers": "HD105",
        "test_cases[0].simulated_user.at_end.goal": "HD100",
    }


def test_a_simulated_case_needs_no_input_but_no_single_turn_fields(tmp_path: Path) -> None:
    alone = CASE.replace('    turns:\n      - input: "Hi, I need help with an order."\n', "")
    alone = alone.replace("turn: 3", "turn: 2")  # no scripted turn: 2 turns at most
    codes = [d.code.value for d in _load(tmp_path, HEADER + "test_cases:\n" + alone).diagnostics]
    assert codes == ["HD160"]
    mixed = alone.replace("  - name: exchange\n", "  - name: exchange\n    input: hi\n")
    codes = [d.code.value for d in _load(tmp_path, HEADER + "test_cases:\n" + mixed).diagnostics]
    assert sorted(codes) == ["HD111", "HD160"]
