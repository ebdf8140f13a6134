"""textDocument/semanticTokens/full and …/full/delta over `token_spans`, with the standard
token types (type, function, namespace, variable, enumMember) so any theme colours them.

The delta is one edit: the changed middle between the previous answer's common prefix and
suffix (what an edit to one line gives); the previous answer is kept per document.
"""

from __future__ import annotations

import itertools

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.parsed import parsed_documents
from holodeck_lsp.server.documents.positions import PositionConverter
from holodeck_lsp.server.documents.token_legend import TOKEN_MODIFIERS, TOKEN_TYPES
from holodeck_lsp.server.guard import answer_or
from holodeck_lsp.server.request_work import off_loop

LEGEND = types.SemanticTokensLegend(
    token_types=list(TOKEN_TYPES), token_modifiers=list(TOKEN_MODIFIERS)
)


def encode(spans: list[tuple[int, int, int, int, int]], converter: PositionConverter) -> list[int]:
    """LSP's relative encoding, in the client's position units."""
    data: list[int] = []
    previous_line = previous_start = 0
    for line, start, length, kind, modifiers in spans:
        client_line, first = converter.to_client(line, start)
        _, last = converter.to_client(line, start + length)
        delta_line = client_line - previous_line
        delta_start = first - previous_start if delta_line == 0 else first
        data.extend((delta_line, delta_start, last - first, kind, modifiers))
        previous_line, previous_start = client_line, first
    return data


def delta_edit(old: list[int], new: list[int]) -> types.SemanticTokensEdit | None:
    """The one edit turning `old` into `new` (None when equal). Tokens are 5 integers each:
    the edit starts and ends on token boundaries, as clients expect."""
    if old == new:
        return None
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    prefix -= prefix % 5
    suffix = 0
    limit -= prefix
    while suffix < limit and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    suffix -= suffix % 5
    return types.SemanticTokensEdit(
        start=prefix,
        delete_count=len(old) - prefix - suffix,
        data=new[prefix : len(new) - suffix],
    )


def register(server: HolodeckServer) -> None:
    parsed_documents(server)
    results = itertools.count(1)
    #: uri -> (result id, data) of the last answer, the base of the next delta.
    previous: dict[str, tuple[str, list[int]]] = {}

    async def tokens(uri: str) -> list[int] | None:
        from holodeck_lsp.server.documents.token_spans import token_spans

        parsed = await parsed_documents(server).get(uri)
        if parsed is None:
            return None
        root, converter = parsed.document.root, parsed.converter
        return await off_loop(lambda: encode(token_spans(root), converter))

    def remember(uri: str, data: list[int]) -> str:
        result_id = str(next(results))
        previous[uri] = (result_id, data)
        return result_id

    @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    @answer_or(None, "semanticTokens")
    async def on_full(params: types.SemanticTokensParams) -> types.SemanticTokens | None:
        uri = params.text_document.uri
        data = await tokens(uri)
        if data is None:
            previous.pop(uri, None)
            return None
        return types.SemanticTokens(data=data, result_id=remember(uri, data))

    @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, LEGEND)
    @answer_or(None, "semanticTokensDelta")
    async def on_delta(
        params: types.SemanticTokensDeltaParams,
    ) -> types.SemanticTokens | types.SemanticTokensDelta | None:
        uri = params.text_document.uri
        data = await tokens(uri)
        if data is None:
            previous.pop(uri, None)
            return None
        base = previous.get(uri)
        result_id = remember(uri, data)
        if base is None or base[0] != params.previous_result_id:
            return types.SemanticTokens(data=data, result_id=result_id)
        edit = delta_edit(base[1], data)
        return types.SemanticTokensDelta(edits=[] if edit is None else [edit], result_id=result_id)
