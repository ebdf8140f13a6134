"""Include files get their own diagnostics; grader modules are imported only when trusted."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import change_file, initialize, open_file, uri, wait_for

AGENT = """name: includes
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: "Answer."
test_cases_file: cases.yaml
"""
CASES = """- name: fine
  input: "q"
  ground_truth: "1"
- name: faulty
  input: "q"
  ground_truth: 2
"""


def write_suite(root: Path) -> tuple[Path, Path]:
    agent, cases = root / "agent.yaml", root / "cases.yaml"
    agent.write_text(AGENT, encoding="utf-8")
    cases.write_text(CASES, encoding="utf-8")
    return agent, cases


async def test_include_faults_go_to_the_include(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client, root=tmp_path)
    agent, cases = write_suite(tmp_path)
    assert not (await wait_for(client, open_file(client, agent))).diagnostics
    params = await wait_for(client, uri(cases), lambda p: bool(p.diagnostics))
    [diagnostic] = params.diagnostics
    assert diagnostic.code == "HD102"
    assert diagnostic.range.start.line == 5
    assert diagnostic.data["field_path"] == "test_cases[1].ground_truth"


async def test_an_include_opened_alone_finds_its_agent(
    client: LanguageClient, tmp_path: Path
) -> None:
    await initialize(client, root=tmp_path)
    _, cases = write_suite(tmp_path)
    params = await wait_for(client, open_file(client, cases), lambda p: bool(p.diagnostics))
    assert [d.code for d in params.diagnostics] == ["HD102"]


async def test_saving_a_fixed_include_clears_it(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client, root=tmp_path)
    agent, cases = write_suite(tmp_path)
    open_file(client, agent)
    await wait_for(client, uri(cases), lambda p: bool(p.diagnostics))
    cases.write_text(CASES.replace("ground_truth: 2", 'ground_truth: "2"'), encoding="utf-8")
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri(cases)))
    )
    await wait_for(client, uri(cases), lambda p: not p.diagnostics)


GRADED = """name: graded
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: "Answer."
test_cases:
  - name: one
    input: "q"
    evaluations:
      - type: code
        grader: "marker_grader:grade"
"""


def write_graded(root: Path) -> tuple[Path, Path]:
    marker = root / "imported.txt"
    (root / "marker_grader.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('imported')\n"
        "raise RuntimeError('boom on import')\n"
        "def grade(ctx):\n    return 1.0\n",
        encoding="utf-8",
    )
    agent = root / "agent.yaml"
    agent.write_text(GRADED, encoding="utf-8")
    return agent, marker


async def test_untrusted_never_imports_graders(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client, root=tmp_path, trusted=False)
    agent, marker = write_graded(tmp_path)
    document = open_file(client, agent)
    assert not (await wait_for(client, document)).diagnostics  # statically, `grade` exists
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(document))
    )
    change_file(client, document, GRADED + "# edited\n", version=2)
    await wait_for(client, document, lambda p: p.version == 2)
    assert not marker.exists()


async def test_trusted_imports_graders_and_keeps_the_verdict_while_typing(
    client: LanguageClient, tmp_path: Path
) -> None:
    await initialize(client, root=tmp_path, trusted=True)
    agent, marker = write_graded(tmp_path)
    document = open_file(client, agent)
    params = await wait_for(client, document, lambda p: bool(p.diagnostics))
    assert [(d.code, d.range.start.line) for d in params.diagnostics] == [("HD134", 11)]
    assert marker.exists()
    # The fast pass (static) alone would say nothing; the cached verdict moves with its line.
    change_file(client, document, "# a new first line\n" + GRADED, version=2)
    params = await wait_for(client, document, lambda p: p.version == 2)
    assert [(d.code, d.range.start.line) for d in params.diagnostics] == [("HD134", 12)]
