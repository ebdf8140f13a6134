"""textDocument/completion over stdio against the real server: keys (present ones left out),
values, matchers, declared tools, functions, graders, paths and snippets — on half-typed YAML
that does not parse, with an astral character before the cursor (UTF-16), and on garbage."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import open_file
from tests.server.shared_server import own_folder, shared_client, shared_workspace

# One server for the module (tests/server/shared_server.py): each test opens its own
# folder's agent.yaml.
workspace = shared_workspace("completion")
client = shared_client()
folder = own_folder()

TOOLS = (
    "def subtract(a: float, b: float) -> float:\n    return a - b\n\n\ndef _hidden():\n    pass\n"
)
GRADERS = "def exact(ctx):\n    return 1.0\n"

AGENT = """\
name: comp
model:
  provider: op
  name: gpt-4o-mini
tools:
  - name: subtract
    type: function
    file: tools.py
    function: {sp}
    desc
test_cases:
  - name: "😀 case"
    turns:
      - input: "😀 q"
        inp
      - inp
      - input: "q2"
        expected_tools:
          - name: {sp}
            args:
              a: {sp}
              b:
                fu
          - {sp}
    evaluations:
      - type: code
        grader: {sp}
""".replace("{sp}", "")


def at(marker_line: str, column: int | None = None) -> tuple[int, int]:
    """(line, UTF-16 character) at the end of the first line equal to `marker_line`."""
    lines = AGENT.split("\n")
    index = lines.index(marker_line)
    text = lines[index] if column is None else lines[index][:column]
    return index, len(text.encode("utf-16-le")) // 2


async def complete(
    client: LanguageClient, document_uri: str, position: tuple[int, int]
) -> dict[str, types.CompletionItem]:
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=document_uri),
            position=types.Position(*position),
        )
    )
    assert isinstance(result, types.CompletionList)
    return {item.label: item for item in result.items}


def text(item: types.CompletionItem) -> str:
    assert isinstance(item.text_edit, types.TextEdit)
    return item.text_edit.new_text


async def opened(client: LanguageClient, tmp_path: Path, agent: str = AGENT) -> str:
    """The agent opened in `tmp_path` (a folder of the shared server's workspace)."""
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    (tmp_path / "graders.py").write_text(GRADERS, encoding="utf-8")
    (tmp_path / "data").mkdir()
    return open_file(client, tmp_path / "agent.yaml", agent)


async def test_keys_and_values(client: LanguageClient, folder: Path) -> None:
    document_uri = await opened(client, folder)
    # a half-typed key under a turn (the YAML does not parse); present keys are left out
    items = await complete(client, document_uri, at("        inp"))
    assert "ground_truth" in items and "expected_tools" in items
    assert "input" not in items
    assert text(items["expected_tools"]) == "expected_tools:\n          - $0"
    assert text(items["ground_truth"]) == "ground_truth: $0"
    assert items["ground_truth"].documentation is not None
    # the edit replaces the typed word, in UTF-16 units
    edit = items["ground_truth"].text_edit
    assert isinstance(edit, types.TextEdit) and edit.range.start.character == 8
    # tool keys: the union narrowed by `type: function`
    items = await complete(client, document_uri, at("    desc"))
    assert "description" in items and "transport" not in items and "name" not in items
    # provider choices
    items = await complete(client, document_uri, at("  provider: op"))
    assert {"openai", "azure_openai", "anthropic", "ollama"} <= set(items)


async def test_items_matchers_and_snippets(client: LanguageClient, folder: Path) -> None:
    document_uri = await opened(client, folder)
    items = await complete(client, document_uri, at("      - inp"))
    assert "new turn" in items and "input" in items
    assert text(items["new turn"]) == 'input: "$1"\n        ground_truth: "$2"'
    items = await complete(client, document_uri, at("          - "))
    assert "subtract" in items and "expected tool with args" in items
    items = await complete(client, document_uri, at("          - name: "))
    assert set(items) == {"subtract"}
    items = await complete(client, document_uri, at("              a: "))
    assert text(items["fuzzy"]) == '{fuzzy: "$1"}' and "regex" in items
    items = await complete(client, document_uri, at("                fu"))
    assert set(items) == {"fuzzy", "regex"}


async def test_functions_graders_and_paths(client: LanguageClient, folder: Path) -> None:
    document_uri = await opened(client, folder)
    items = await complete(client, document_uri, at("    function: "))
    assert set(items) == {"subtract"}
    items = await complete(client, document_uri, at("        grader: "))
    # Only grader-shaped callables (one positional argument): not the two-argument tool.
    assert "graders:exact" in items and "tools:subtract" not in items
    items = await complete(client, document_uri, at("    file: tools.py", 10))
    assert {"tools.py", "graders.py", "data"} <= set(items)
    assert text(items["data"]) == "data/"


async def test_utf16_positions(client: LanguageClient, folder: Path) -> None:
    agent = (
        'name: x\ntest_cases:\n  - name: "😀"\n    turns:\n      - input: "😀"\n'
        '        ground_truth: "1"  # 😀\n        exp\n'
    )
    document_uri = await opened(client, folder, agent)
    items = await complete(client, document_uri, (6, 11))
    assert "expected_tools" in items and "ground_truth" not in items
    # the emoji line itself: a value position after the emoji
    line = '      - input: "😀"'
    items = await complete(client, document_uri, (4, len(line.encode("utf-16-le")) // 2))
    assert isinstance(items, dict)


async def test_garbage_gives_no_error(client: LanguageClient, folder: Path) -> None:
    """A crash inside the handler is swallowed by the server's guard (server/guard.py), which
    then answers null instead of a list — so each answer must be a CompletionList, not just
    arrive: a swallowed crash fails this test."""
    garbage = "::: - [ {\n\t- - x: y: z\n  }}}\n😀😀 - :\n"
    document_uri = await opened(client, folder, garbage)
    for line in range(5):
        for character in (0, 1, 3, 20):
            result = await client.text_document_completion_async(
                types.CompletionParams(
                    text_document=types.TextDocumentIdentifier(uri=document_uri),
                    position=types.Position(line, character),
                )
            )
            assert isinstance(result, types.CompletionList), (line, character, result)


async def test_argument_names_grader_shape_and_matcher_docs(
    client: LanguageClient, folder: Path
) -> None:
    """Inside `args:` the tool's real parameters with type and default; `grader:` offers only
    grader-shaped functions; the `fuzzy` documentation is hover's."""
    from holodeck_lsp.server.documents.matcher_docs import FUZZY_DOC

    (folder / "tools.py").write_text(
        "def subtract(a: float, b: float = 0.0, *, rounding: int = 2) -> float:\n"
        "    return a - b\n",
        encoding="utf-8",
    )
    (folder / "graders.py").write_text(
        "import os\nfrom math import isclose\nLIMIT = 3\nclass Box: pass\n"
        "def exact(ctx):\n    return 1.0\ndef two(a, b):\n    return 0\n"
        "def _private(ctx):\n    return 0\n",
        encoding="utf-8",
    )
    text = (
        "name: a\nmodel: {provider: openai, name: gpt-4o}\ninstructions: {inline: x}\n"
        "tools:\n  - name: subtract\n    type: function\n    description: d\n"
        "    file: tools.py\n    function: subtract\n"
        "evaluations:\n  metrics:\n    - type: code\n      grader: \n"
        "    - type: standard\n      metric: \n"
        "test_cases:\n  - input: q\n    expected_tools:\n      - name: subtract\n"
        "        args:\n          a: 1\n          \n"
    )
    document = open_file(client, folder / "agent.yaml", text)
    lines = text.split("\n")

    async def labels_at(line: int, character: int) -> list[types.CompletionItem]:
        result = await client.text_document_completion_async(
            types.CompletionParams(
                types.TextDocumentIdentifier(document), types.Position(line, character)
            )
        )
        assert isinstance(result, types.CompletionList)
        return result.items

    args = await labels_at(len(lines) - 2, 10)
    assert [(i.label, i.detail) for i in args] == [
        ("b", "float = 0.0"),
        ("rounding", "int = 2"),
    ]
    metrics = await labels_at(14, len("      metric: "))
    assert {"equality", "numeric"} <= {i.label for i in metrics}
    graders = await labels_at(12, len("      grader: "))
    # Not the import, the class, the constant, the two-argument or the private function.
    assert [i.label for i in graders] == ["graders:exact", "tools:subtract"]
    matchers = await labels_at(len(lines) - 3, len("          a: "))
    fuzzy = next(i for i in matchers if i.label == "fuzzy")
    assert isinstance(fuzzy.documentation, types.MarkupContent)
    assert fuzzy.documentation.value == FUZZY_DOC
