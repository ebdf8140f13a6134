"""Code actions from the real server: ask for the fixes of a published diagnostic, apply the
returned WorkspaceEdit ourselves (UTF-16 positions, as a client would) and check again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls import uris
from pytest_lsp import LanguageClient

from tests.server.lsp_client import (
    change_file,
    open_file,
    uri,
    wait_for,
)
from tests.server.shared_server import own_client, own_folder, shared_client, shared_workspace

# Real servers over stdio (one for the module, one for the client without documentChanges):
# run by CI and by `pytest FILE`, not the loop.
pytestmark = pytest.mark.slow

HEADER = """name: fixes
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: "Answer."
"""
TOOLS = """tools:
  - name: search_docs
    type: function
    description: Search the docs.
    file: tools.py
    function: search
"""


async def start(client: LanguageClient, root: Path, *, document_changes: bool = True) -> None:
    edit = types.WorkspaceEditClientCapabilities(
        document_changes=document_changes,
        resource_operations=[types.ResourceOperationKind.Create] if document_changes else None,
    )
    await client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                workspace=types.WorkspaceClientCapabilities(workspace_edit=edit),
                text_document=types.TextDocumentClientCapabilities(
                    publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                        version_support=True
                    )
                ),
            ),
            root_uri=uri(root),
            workspace_folders=[types.WorkspaceFolder(uri=uri(root), name=root.name)],
        )
    )


# One server for the module: no test changes its state but for its own documents (its own
# folder's agent.yaml, closed after the test) and the files of that folder.
workspace = shared_workspace("code-actions")
client = shared_client(start=start)
folder = own_folder()

#: A server of its own, for a client that negotiates no documentChanges.
plain_client = own_client()


def _offset(text: str, position: types.Position) -> int:
    """A UTF-16 position as an index into `text` (lines split at \\n)."""
    lines = text.split("\n")
    start = sum(len(line) + 1 for line in lines[: position.line])
    units = lines[position.line].encode("utf-16-le")[: 2 * position.character]
    return start + len(units.decode("utf-16-le"))


def apply_text_edits(text: str, edits: list[types.TextEdit]) -> str:
    # Back to front; edits at the same place apply in their given order (LSP).
    spans = [
        (_offset(text, e.range.start), i, _offset(text, e.range.end), e.new_text)
        for i, e in enumerate(edits)
    ]
    for start, _, end, new_text in sorted(spans, reverse=True):
        text = text[:start] + new_text + text[end:]
    return text


def apply_edit(edit: types.WorkspaceEdit, texts: dict[str, str]) -> dict[str, str]:
    """`texts` (by URI) after `edit`, as a client applies it; created files start empty."""
    texts = dict(texts)
    if edit.changes is not None:
        for target, edits in edit.changes.items():
            texts[target] = apply_text_edits(texts[target], list(edits))
    for change in edit.document_changes or []:
        if isinstance(change, types.CreateFile):
            texts.setdefault(change.uri, "")
        else:
            assert isinstance(change, types.TextDocumentEdit)
            target = change.text_document.uri
            edits = [e for e in change.edits if isinstance(e, types.TextEdit)]
            texts[target] = apply_text_edits(texts[target], edits)
    return texts


async def actions(
    client: LanguageClient,
    document: str,
    where: types.Range,
    diagnostics: list[types.Diagnostic],
    only: list[types.CodeActionKind] | None = None,
) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=document),
            range=where,
            context=types.CodeActionContext(diagnostics=diagnostics, only=only),
        )
    )
    found = [item for item in result or [] if isinstance(item, types.CodeAction)]
    assert len(found) == len(result or [])
    return found


async def fix(
    client: LanguageClient, document: str, text: str, version: int, code: str
) -> tuple[types.CodeAction, str]:
    """Apply the preferred fix of the `code` diagnostic in `version`; check it is gone."""
    published = await wait_for(client, document, lambda p: p.version == version)
    diagnostic = next(d for d in published.diagnostics if d.code == code)
    offered = await actions(client, document, diagnostic.range, [diagnostic])
    # A cursor in a single-turn case is also offered the `turns:` refactor.
    [action] = [a for a in offered if a.kind == types.CodeActionKind.QuickFix and a.is_preferred]
    assert list(action.diagnostics or []) == [diagnostic]
    assert action.edit is not None
    new_text = apply_edit(action.edit, {document: text})[document]
    change_file(client, document, new_text, version + 1)
    after = await wait_for(client, document, lambda p: p.version == version + 1)
    remaining = [d.code for d in published.diagnostics]
    remaining.remove(code)
    assert [d.code for d in after.diagnostics] == remaining
    return action, new_text


async def test_quote_a_number_on_a_line_with_an_emoji(client: LanguageClient, folder: Path) -> None:
    text = HEADER + 'test_cases:\n  - {name: "📈 growth", input: "q", ground_truth: 25587}\n'
    document = open_file(client, folder / "agent.yaml", text)
    action, fixed = await fix(client, document, text, 1, "HD102")
    assert action.title == "Quote the value"
    assert 'ground_truth: "25587"}' in fixed


async def test_quote_booleans_and_dates_as_written(client: LanguageClient, folder: Path) -> None:
    text = HEADER + "test_cases:\n  - input: yes\n    ground_truth: 2009-01-01\n"
    document = open_file(client, folder / "agent.yaml", text)
    _, text = await fix(client, document, text, 1, "HD102")
    _, text = await fix(client, document, text, 2, "HD102")
    assert text.endswith('  - input: "yes"\n    ground_truth: "2009-01-01"\n')


async def test_quote_matcher_patterns(client: LanguageClient, folder: Path) -> None:
    text = (
        HEADER
        + "test_cases:\n  - input: q\n"
        + "    expected_tools: [{name: t, args: {a: {fuzzy: 12}, b: {regex: 1.50}}}]\n"
    )
    document = open_file(client, folder / "agent.yaml", text)
    _, text = await fix(client, document, text, 1, "HD102")
    _, text = await fix(client, document, text, 2, "HD102")
    assert '{a: {fuzzy: "12"}, b: {regex: "1.50"}}' in text


async def test_did_you_mean_fixes(client: LanguageClient, folder: Path) -> None:
    (folder / "tools.py").write_text("def search(q):\n    return q\n", encoding="utf-8")
    text = (
        HEADER.replace("provider: openai", "provider: openia")
        + TOOLS
        + "evaluations:\n  metrics:\n    - type: standard\n      metric: numerc\n"
        + "test_cases:\n"
        + "  - input: q\n"
        + '    groundtruth: "a"\n'
        + "    expected_tools:\n"
        + "      - serch_docs\n"
        + "      - name: search_docs\n"
        + '        args: {q: {fuzy: "docs"}}\n'
    )
    document = open_file(client, folder / "agent.yaml", text)
    titles = []
    codes = ("HD103", "HD103", "HD100", "HD201", "HD125")
    for version, code in enumerate(codes, start=1):
        action, text = await fix(client, document, text, version, code)
        titles.append(action.title)
    assert titles == [
        "Change to 'openai'",
        "Change to 'numeric'",
        "Change to 'ground_truth'",
        "Change to 'search_docs'",
        "Change to 'fuzzy'",
    ]
    assert "provider: openai\n" in text
    assert "      metric: numeric\n" in text
    assert '    ground_truth: "a"\n' in text
    assert "      - search_docs\n" in text
    assert '{q: {fuzzy: "docs"}}' in text


async def test_uncompilable_regex_matched_literally(client: LanguageClient, folder: Path) -> None:
    text = (
        HEADER
        + "test_cases:\n  - input: q\n"
        + '    expected_tools: [{name: t, args: {a: {regex: "f(x"}}}]\n'
    )
    document = open_file(client, folder / "agent.yaml", text)
    action, fixed = await fix(client, document, text, 1, "HD120")
    assert action.title == "Match this text literally"
    assert '{regex: "f\\\\(x"}' in fixed


def _grader_agent(spec: str) -> str:
    return HEADER + (
        "evaluations:\n  metrics:\n    - type: code\n"
        f"      grader: {spec}\n"
        "test_cases:\n  - input: q\n"
    )


async def test_create_missing_grader_function(client: LanguageClient, folder: Path) -> None:
    module = folder / "checks.py"
    module.write_text('"""Our graders."""\n\nfrom __future__ import annotations\n', "utf-8")
    text = _grader_agent("checks:exact_total")
    document = open_file(client, folder / "agent.yaml", text)
    published = await wait_for(client, document, lambda p: p.version == 1)
    [diagnostic] = [d for d in published.diagnostics if d.code == "HD132"]
    # No grader-shaped function to change to: creating one is the only fix.
    [action] = await actions(client, document, diagnostic.range, [diagnostic])
    assert action.title == "Create grader function `exact_total` in `checks.py`"
    assert action.edit is not None and action.edit.document_changes is not None
    module_uri = uri(module)
    written = apply_edit(action.edit, {module_uri: module.read_text("utf-8")})[module_uri]
    assert written.startswith(
        '"""Our graders."""\n\nfrom __future__ import annotations\n'
        "from holodeck_lsp.engine.code_graders import GraderContext, GraderResult\n"
    )
    assert "def exact_total(ctx: GraderContext) -> GraderResult:" in written
    compile(written, "checks.py", "exec")
    module.write_text(written, "utf-8")
    change_file(client, document, text, 2)
    after = await wait_for(client, document, lambda p: p.version == 2)
    assert not after.diagnostics


async def test_create_missing_grader_module(client: LanguageClient, folder: Path) -> None:
    text = _grader_agent("my_graders:score_it")
    document = open_file(client, folder / "agent.yaml", text)
    published = await wait_for(client, document, lambda p: p.version == 1)
    [diagnostic] = [d for d in published.diagnostics if d.code == "HD131"]
    [action] = await actions(client, document, diagnostic.range, [diagnostic])
    assert action.edit is not None and action.edit.document_changes is not None
    create = action.edit.document_changes[0]
    assert isinstance(create, types.CreateFile)
    path = Path(str(uris.to_fs_path(create.uri)))
    assert path == folder / "my_graders.py"
    written = apply_edit(action.edit, {})[create.uri]
    namespace: dict[str, Any] = {}
    exec(compile(written, str(path), "exec"), namespace)
    result = namespace["score_it"](None)
    assert (result.score, result.passed, result.reason) == (0.0, False, "not implemented yet")
    path.write_text(written, "utf-8")
    change_file(client, document, text, 2)
    after = await wait_for(client, document, lambda p: p.version == 2)
    assert not after.diagnostics


async def test_plain_changes_for_clients_without_document_changes(
    plain_client: LanguageClient, tmp_path: Path
) -> None:
    client = plain_client
    await start(client, tmp_path, document_changes=False)
    text = _grader_agent("my_graders:score_it") + "    ground_truth: 5\n"
    document = open_file(client, tmp_path / "agent.yaml", text)
    published = await wait_for(client, document, lambda p: p.version == 1)
    by_code = {d.code: d for d in published.diagnostics}
    # Creating a file needs resource operations: not offered.
    quick = [types.CodeActionKind.QuickFix]
    hd131, hd102 = by_code["HD131"], by_code["HD102"]
    assert await actions(client, document, hd131.range, [hd131], only=quick) == []
    [action] = await actions(client, document, hd102.range, [hd102], only=quick)
    assert action.edit is not None and action.edit.document_changes is None
    assert action.edit.changes is not None
    assert apply_edit(action.edit, {document: text})[document].endswith('ground_truth: "5"\n')


LEGACY = """test_cases:
  - name: totals
    input: "What is the total?"  # asked plainly
    ground_truth: |
      It is 42.
      Really.
    evaluations:
      - metric: bleu
    expected_tools:
      - search_docs
  - name: other
    input: "Hi"
"""
CONVERTED = """test_cases:
  - name: totals
    turns:
      - input: "What is the total?"  # asked plainly
        ground_truth: |
          It is 42.
          Really.
        expected_tools:
          - search_docs
    evaluations:
      - metric: bleu
  - name: other
    input: "Hi"
"""


async def test_convert_single_turn_case_to_turns(client: LanguageClient, folder: Path) -> None:
    (folder / "tools.py").write_text("def search(q):\n    return q\n", encoding="utf-8")
    text = HEADER + TOOLS + LEGACY
    document = open_file(client, folder / "agent.yaml", text)
    assert not (await wait_for(client, document, lambda p: p.version == 1)).diagnostics
    line = text.split("\n").index("      Really.")
    cursor = types.Range(types.Position(line, 8), types.Position(line, 8))
    refactor = [types.CodeActionKind.Refactor]
    [action] = await actions(client, document, cursor, [], only=refactor)
    assert action.kind == types.CodeActionKind.RefactorRewrite
    assert action.title == "Convert to multi-turn (`turns:`)"
    assert action.edit is not None
    converted = apply_edit(action.edit, {document: text})[document]
    assert converted == HEADER + TOOLS + CONVERTED
    change_file(client, document, converted, 2)
    assert not (await wait_for(client, document, lambda p: p.version == 2)).diagnostics
    # Not offered on a multi-turn case, nor when only quick fixes are asked for.
    again = await actions(client, document, cursor, [], only=refactor)
    assert again == []
    quick = [types.CodeActionKind.QuickFix]
    assert await actions(client, document, cursor, [], only=quick) == []


async def test_broken_yaml_gets_no_actions(client: LanguageClient, folder: Path) -> None:
    text = HEADER + "test_cases:\n  - input: [unclosed\n"
    document = open_file(client, folder / "agent.yaml", text)
    published = await wait_for(client, document, lambda p: p.version == 1)
    assert published.diagnostics
    everywhere = types.Range(types.Position(0, 0), types.Position(9, 0))
    assert await actions(client, document, everywhere, published.diagnostics) == []
    bogus = types.Diagnostic(
        range=types.Range(types.Position(99, 3), types.Position(99, 9)),
        message="made up",
        code="HD102",
        source="holodeck",
        data={"expected": "a string"},
    )
    assert await actions(client, document, everywhere, [bogus]) == []


MIXED = """test_cases:
  - input: "first"  # opener
    ground_truth: |
      one
    name: mixed
    turns:
    - input: second
      ground_truth: two
    retrieval_context:
      - "doc"
"""
MOVED = """test_cases:
  - name: mixed
    turns:
    - input: "first"  # opener
      ground_truth: |
        one
      retrieval_context:
        - "doc"
    - input: second
      ground_truth: two
"""


async def test_mixed_legacy_fields_become_a_first_turn(
    client: LanguageClient, folder: Path
) -> None:
    text = HEADER + MIXED
    document = open_file(client, folder / "agent.yaml", text)
    published = await wait_for(client, document, lambda p: p.version == 1)
    mixed = [d for d in published.diagnostics if d.code == "HD111"]
    assert len(mixed) == 3  # one per legacy field
    everywhere = types.Range(types.Position(0, 0), types.Position(20, 0))
    quick = [types.CodeActionKind.QuickFix]
    [action] = await actions(client, document, everywhere, mixed, only=quick)
    assert action.title == "Move the single-turn fields into a new first turn"
    assert list(action.diagnostics or []) == mixed
    assert action.edit is not None
    moved = apply_edit(action.edit, {document: text})[document]
    assert moved == HEADER + MOVED
    change_file(client, document, moved, 2)
    assert not (await wait_for(client, document, lambda p: p.version == 2)).diagnostics


async def test_mixed_case_without_input_is_left_to_the_user(
    client: LanguageClient, folder: Path
) -> None:
    text = HEADER + "test_cases:\n  - turns:\n      - input: a\n    ground_truth: b\n"
    document = open_file(client, folder / "agent.yaml", text)
    published = await wait_for(client, document, lambda p: p.version == 1)
    [mixed] = [d for d in published.diagnostics if d.code == "HD111"]
    assert await actions(client, document, mixed.range, [mixed]) == []


async def test_regex_fix_escapes_only_the_culprit(client: LanguageClient, folder: Path) -> None:
    text = (
        HEADER
        + "test_cases:\n  - input: q\n"
        + "    expected_tools: [{name: t, args: {a: {regex: '(?i)total\\s*(usd'}}}]\n"
    )
    document = open_file(client, folder / "agent.yaml", text)
    published = await wait_for(client, document, lambda p: p.version == 1)
    [diagnostic] = [d for d in published.diagnostics if d.code == "HD120"]
    quick = [types.CodeActionKind.QuickFix]
    offered = await actions(client, document, diagnostic.range, [diagnostic], only=quick)
    assert [(a.title, a.is_preferred) for a in offered] == [
        ("Escape `(` (keep the rest of the regex)", True),
        ("Match this text literally", None),
    ]
    _, fixed = await fix(client, document, text, 1, "HD120")
    assert "{regex: '(?i)total\\s*\\(usd'}" in fixed


GRADERS = """def turn_program_equivalence(ctx):
    return True


def helper(a, b):
    return a
"""


async def test_unknown_grader_changed_to_the_closest_one(
    client: LanguageClient, folder: Path
) -> None:
    (folder / "checks.py").write_text(GRADERS, "utf-8")
    text = _grader_agent("checks:turn_program_equivalnce")
    document = open_file(client, folder / "agent.yaml", text)
    published = await wait_for(client, document, lambda p: p.version == 1)
    [diagnostic] = [d for d in published.diagnostics if d.code == "HD132"]
    offered = await actions(client, document, diagnostic.range, [diagnostic])
    assert [a.title for a in offered] == [
        "Change to 'turn_program_equivalence'",
        "Create grader function `turn_program_equivalnce` in `checks.py`",
    ]
    _, fixed = await fix(client, document, text, 1, "HD132")
    assert "grader: checks:turn_program_equivalence\n" in fixed


async def test_fix_all_of_one_code(client: LanguageClient, folder: Path) -> None:
    text = (
        HEADER
        + "test_cases:\n"
        + "  - {input: q, ground_truth: 1}\n"
        + "  - {input: yes, ground_truth: 2009-01-01}\n"
        + "  - input: r\n    expected_tools: [{name: t, args: {a: {regex: 'x('}}}]\n"
    )
    document = open_file(client, folder / "agent.yaml", text)
    published = await wait_for(client, document, lambda p: p.version == 1)
    quoted = [d for d in published.diagnostics if d.code == "HD102"]
    assert len(quoted) == 3
    offered = await actions(client, document, quoted[0].range, [quoted[0]])
    [one, every] = offered
    assert one.title == "Quote the value"
    assert every.title == "Fix all HD102 in this file"
    assert every.kind == types.CodeActionKind.QuickFix and not every.is_preferred
    assert list(every.diagnostics or []) == quoted
    assert every.edit is not None
    fixed = apply_edit(every.edit, {document: text})[document]
    assert '{input: q, ground_truth: "1"}' in fixed
    assert '{input: "yes", ground_truth: "2009-01-01"}' in fixed
    change_file(client, document, fixed, 2)
    after = await wait_for(client, document, lambda p: p.version == 2)
    assert "HD102" not in [d.code for d in after.diagnostics]
    # One HD120 in the file: its own fix, no fix-all.
    [hd120] = [d for d in after.diagnostics if d.code == "HD120"]
    quick = [types.CodeActionKind.QuickFix]
    again = await actions(client, document, hd120.range, [hd120], only=quick)
    assert [a.title for a in again] == ["Match this text literally"]


async def test_a_diagnostic_sent_back_without_its_data_still_gets_its_fix(
    client: LanguageClient, folder: Path
) -> None:
    """Kate 22.12 sends our diagnostics back without `data` (where the suggestion is): the
    server takes it from the same diagnostic of its last check."""
    text = HEADER.replace("provider: openai", "provider: openia") + "test_cases:\n  - input: q\n"
    document = open_file(client, folder / "agent.yaml", text)
    published = await wait_for(client, document, lambda p: p.version == 1)
    [typo] = [d for d in published.diagnostics if d.code == "HD103"]
    assert typo.data is not None
    stripped = types.Diagnostic(
        range=typo.range, message=typo.message, severity=typo.severity, code=typo.code,
        source=typo.source,
    )  # fmt: skip
    offered = await actions(client, document, typo.range, [stripped])
    assert [a.title for a in offered if a.kind == types.CodeActionKind.QuickFix] == [
        "Change to 'openai'"
    ]
    # A diagnostic the server never published (another range) gets no made-up data.
    elsewhere = types.Diagnostic(
        range=types.Range(types.Position(0, 0), types.Position(0, 1)), message=typo.message,
        code=typo.code, source=typo.source,
    )  # fmt: skip
    assert [a for a in await actions(client, document, elsewhere.range, [elsewhere])
            if a.kind == types.CodeActionKind.QuickFix] == []  # fmt: skip
