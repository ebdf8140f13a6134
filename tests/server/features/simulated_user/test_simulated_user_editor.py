"""`simulated_user:` in the editor, over stdio against the real server: its diagnostics at
their exact ranges (HD160 on the key, a warning; an error under `upstream_loadable: true`;
an unreachable `at_turn`), hover and completion read from its schema, and the quick fix of a
misspelt provider."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.features.code_actions.test_code_actions import fix
from tests.server.features.completion.test_completion import complete
from tests.server.features.navigation_agent import hover_text
from tests.server.lsp_client import initialize, open_file, wait_for

#: A language server per test.
pytestmark = pytest.mark.slow

AGENT = """\
name: shop
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: You help customers.
test_cases:
  - name: exchange
    turns:
      - input: "Hi, I need help with an order."
    simulated_user:
      instructions: You are Yusuf and want to exchange a keyboard.
      model:
        provider: openai
        name: gpt-4.1-mini
      max_turns: 3
      at_turn:
        - turn: 9
      at_end:
        communicate_info: ["W2378156"]
"""


def _at(text: str, needle: str, offset: int = 0) -> types.Position:
    line = next(n for n, t in enumerate(text.split("\n")) if needle in t)
    return types.Position(line=line, character=text.split("\n")[line].index(needle) + offset)


async def test_diagnostics_at_their_ranges(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client, root=tmp_path)
    document = open_file(client, tmp_path / "agent.yaml", AGENT)
    published = await wait_for(client, document)
    found = {
        (d.code, d.severity, d.range.start.line, d.range.start.character, d.range.end.character)
        for d in published.diagnostics
    }
    warning, error = types.DiagnosticSeverity.Warning, types.DiagnosticSeverity.Error
    key = _at(AGENT, "simulated_user")
    turn = _at(AGENT, "turn: 9", offset=6)
    assert found == {
        ("HD160", warning, key.line, key.character, key.character + len("simulated_user")),
        ("HD104", error, turn.line, turn.character, turn.character + 1),
    }


async def test_the_setting_makes_it_an_error(client: LanguageClient, tmp_path: Path) -> None:
    (tmp_path / "holodeck-lsp.yaml").write_text("upstream_loadable: true\n", encoding="utf-8")
    await initialize(client, root=tmp_path)
    document = open_file(client, tmp_path / "agent.yaml", AGENT.replace("turn: 9", "turn: 2"))
    published = await wait_for(client, document)
    [diagnostic] = published.diagnostics
    assert diagnostic.code == "HD160"
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert "upstream_loadable: true" in diagnostic.message


async def test_hover_and_completion_come_from_the_schema(
    client: LanguageClient, tmp_path: Path
) -> None:
    await initialize(client, root=tmp_path)
    document = open_file(client, tmp_path / "agent.yaml", AGENT)
    await wait_for(client, document)
    hover = await hover_text(client, document, _at(AGENT, "max_turns", offset=2))
    assert hover is not None and "User messages the simulator may write" in hover
    hover = await hover_text(client, document, _at(AGENT, "communicate_info", offset=2))
    assert hover is not None and "case-insensitive, commas ignored" in hover
    # Keys offered inside `simulated_user:` (those present left out) and inside `at_end:`.
    edited = AGENT.replace("      max_turns: 3\n", "      max_turns: 3\n      \n")
    open_file(client, tmp_path / "agent.yaml", edited, version=2)
    where = _at(edited, "max_turns: 3")
    items = await complete(client, document, (where.line + 1, 6))
    assert {"stop_markers", "every_turn"} <= set(items)
    assert "max_turns" not in items and "instructions" not in items
    documentation = items["stop_markers"].documentation
    text = documentation.value if isinstance(documentation, types.MarkupContent) else documentation
    assert text is not None and "ends the conversation" in text


async def test_quick_fix_of_a_misspelt_provider(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client, root=tmp_path)
    text = AGENT.replace("turn: 9", "turn: 2")
    text = text.replace("        provider: openai", "        provider: opnai")
    document = open_file(client, tmp_path / "agent.yaml", text)
    action, fixed = await fix(client, document, text, 1, "HD103")
    assert action.title == "Change to 'openai'"
    assert "        provider: openai\n        name: gpt-4.1-mini" in fixed
