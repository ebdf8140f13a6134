"""textDocument/documentLink: every value naming a file that exists (`file:`, a case's files'
`path:`, `test_cases_file:`, a `grader:`'s module) becomes a link to it (`file_values`)."""

from __future__ import annotations

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.index import path_to_uri
from holodeck_lsp.server.documents.parsed import Parsed, parsed_documents
from holodeck_lsp.server.guard import answer_or
from holodeck_lsp.server.request_work import off_loop


async def document_links(server: HolodeckServer, uri: str) -> list[types.DocumentLink]:
    parsed = await parsed_documents(server).get(uri)
    if parsed is None or parsed.agent_dir is None:
        return []
    return await off_loop(lambda: _links(parsed))  # the walk and a stat per file value


def _links(parsed: Parsed) -> list[types.DocumentLink]:
    from holodeck_lsp.server.documents.file_values import file_values

    assert parsed.agent_dir is not None
    links: list[types.DocumentLink] = []
    for value in file_values(parsed.document.root, parsed.agent_dir):
        start = parsed.converter.to_client(value.line, value.start)
        end = parsed.converter.to_client(value.line, value.end)
        links.append(
            types.DocumentLink(
                range=types.Range(types.Position(*start), types.Position(*end)),
                target=path_to_uri(value.target),
            )
        )
    return links


def register(server: HolodeckServer) -> None:
    parsed_documents(server)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_LINK)
    @answer_or(list, "documentLink")
    async def on_document_link(params: types.DocumentLinkParams) -> list[types.DocumentLink]:
        return await document_links(server, params.text_document.uri)
