"""textDocument/semanticTokens/full and /full/delta over stdio against the real server: the
legend's standard types, matcher kinds, tool names, grader parts, metric names and `#N` steps;
a delta after an edit, applied to the previous answer, equals a fresh full answer."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.features.navigation_agent import AGENT, opened
from tests.server.lsp_client import change_file


def decode(data: list[int], legend: list[str]) -> list[tuple[int, int, int, str]]:
    out: list[tuple[int, int, int, str]] = []
    line = start = 0
    for i in range(0, len(data), 5):
        delta_line, delta_start, length, kind, _ = data[i : i + 5]
        line += delta_line
        start = delta_start if delta_line else start + delta_start
        out.append((line, start, length, legend[kind]))
    return out


def text_of(lines: list[str], token: tuple[int, int, int, str]) -> str:
    line, start, length, _ = token
    # UTF-16 columns: the file's lines with astral characters count twice.
    encoded = lines[line].encode("utf-16-le")
    return encoded[2 * start : 2 * (start + length)].decode("utf-16-le")


async def test_semantic_tokens_full_and_delta(client: LanguageClient, tmp_path: Path) -> None:
    answers: list[types.InitializeResult] = []
    original = client.initialize_session

    async def keep(params: types.InitializeParams) -> types.InitializeResult:
        answers.append(await original(params))
        return answers[-1]

    client.initialize_session = keep  # type: ignore[method-assign]
    document = await opened(client, tmp_path)
    provider = answers[0].capabilities.semantic_tokens_provider
    assert isinstance(provider, types.SemanticTokensOptions)
    assert isinstance(provider.full, types.SemanticTokensFullDelta) and provider.full.delta
    legend = provider.legend
    assert {"type", "function", "namespace", "enumMember"} <= set(legend.token_types)
    full = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(types.TextDocumentIdentifier(document))
    )
    assert full is not None and full.result_id
    lines = AGENT.split("\n")
    tokens = {(text_of(lines, t), t[3]) for t in decode(full.data, legend.token_types)}
    assert tokens == {
        ("subtract", "function"),
        ("fuzzy", "type"),
        ("graders", "namespace"),
        ("exact", "function"),
        ("numeric", "enumMember"),
    }

    edited = AGENT.replace(
        '      - input: "😀 and the change?"\n        ground_truth: 5',
        '      - input: "😀 and the change?"\n'
        '        ground_truth: "subtract(1, 2), divide(#0, 3)"',
    ).replace("a: {fuzzy:", "a: {regex:")
    change_file(client, document, edited, 2)
    delta = await client.text_document_semantic_tokens_full_delta_async(
        types.SemanticTokensDeltaParams(types.TextDocumentIdentifier(document), full.result_id)
    )
    assert isinstance(delta, types.SemanticTokensDelta)
    data = list(full.data)
    for edit in delta.edits:
        data[edit.start : edit.start + edit.delete_count] = edit.data or []
    again = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(types.TextDocumentIdentifier(document))
    )
    assert again is not None and data == list(again.data)
    new_lines = edited.split("\n")
    tokens = {(text_of(new_lines, t), t[3]) for t in decode(data, legend.token_types)}
    assert ("#0", "variable") in tokens and ("regex", "type") in tokens
    assert ("fuzzy", "type") not in tokens
