"""The agent the navigation features' tests (hover, symbols, folding, definition) open in the
real server: it has a validation error (they read the parsed YAML, not the validated agent) and
an astral character before a hovered text (UTF-16 positions)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import initialize, open_file, wait_for

TOOLS = '''\
"""Tools."""


def subtract(a: float, b: float) -> float:
    """Return a minus b."""
    return a - b
'''

GRADERS = '''\
def exact(test_case, result):
    """Pass when the answer is exact."""
    return 1.0
'''

AGENT = """\
name: nav
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: "Answer."
tools:
  - name: subtract
    type: function
    description: "Return a minus b."
    file: tools.py
    function: subtract
evaluations:
  metrics:
    - type: standard
      metric: numeric
      absolute_tolerance: 0.01
    - type: code
      grader: graders:exact
test_cases:
  - name: "😀 first"
    turns:
      - input: "what was the weighted average exercise price per share in 2007?"
        ground_truth: "60.94"
      - input: "😀 and the change?"
        ground_truth: 5
        expected_tools:
          - name: subtract
            args:
              a: {fuzzy: "60.94"}
              b: 25.14
  - input: "single"
    ground_truth: "x"
"""


def lines() -> list[str]:
    return AGENT.split("\n")


def position(needle: str, occurrence: int = 0, offset: int = 0) -> types.Position:
    """The UTF-16 position of `needle` (its n-th line), plus `offset` code points."""
    found = [(n, text) for n, text in enumerate(lines()) if needle in text][occurrence]
    line, text = found
    prefix = text[: text.index(needle) + offset]
    return types.Position(line=line, character=len(prefix.encode("utf-16-le")) // 2)


def case_name_position(text: str, name: str) -> types.Position:
    """Inside the quoted name of the case `  - name: "<name>"` of `text` (an imported
    suite's agent file)."""
    line = next(n for n, t in enumerate(text.splitlines()) if t == f'  - name: "{name}"')
    return types.Position(line=line, character=len('  - name: "') + 1)


async def opened(client: LanguageClient, tmp_path: Path, *, initialized: bool = False) -> str:
    """The sample agent opened in `tmp_path`; the session is initialized on `tmp_path` first
    unless it is `initialized` already (a shared server, tests/server/shared_server.py)."""
    if not initialized:
        await initialize(client, root=tmp_path)
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    (tmp_path / "graders.py").write_text(GRADERS, encoding="utf-8")
    agent = tmp_path / "agent.yaml"
    agent.write_text(AGENT, encoding="utf-8")
    document = open_file(client, agent)
    # The file has a validation error (ground_truth: 5): the features still work.
    published = await wait_for(client, document)
    assert [d.code for d in published.diagnostics] == ["HD102"]
    return document


async def hover_text(client: LanguageClient, document: str, where: types.Position) -> str | None:
    result = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(document), position=where)
    )
    if result is None:
        return None
    assert isinstance(result.contents, types.MarkupContent)
    assert result.contents.kind == types.MarkupKind.Markdown
    return result.contents.value
