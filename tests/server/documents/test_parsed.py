"""The shared parse of an open document (server/documents/parsed.py): requests of one version
share one parse, and a cancelled request — a client's `$/cancelRequest` — never cancels the
parse the requests after it wait for."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field

from holodeck_lsp.server.documents.parsed import ParsedDocuments
from holodeck_lsp.server.documents.positions import PositionConverter

URI = "file:///project/agent.yaml"
TEXT = "name: a\nmodel:\n  provider: openai\n  name: gpt-4o\n"


@dataclass
class _Document:
    source: str
    version: int


@dataclass
class _Workspace:
    text_documents: dict[str, _Document] = field(default_factory=dict)


class _Server:
    """What ParsedDocuments reads of the server: its open documents and position encoding."""

    position_encoding = "utf-16"

    def __init__(self) -> None:
        self.workspace = _Workspace({URI: _Document(TEXT, 1)})

    def converter(self, text: str) -> PositionConverter:
        return PositionConverter(text, self.position_encoding)


async def test_a_cancelled_request_does_not_cancel_the_queued_parse() -> None:
    documents = ParsedDocuments(_Server())  # type: ignore[arg-type]
    # The one parse worker is busy, so the version's parse waits in the queue, where a
    # cancel of the future would succeed.
    release = threading.Event()
    documents._executor.submit(release.wait)
    doomed = asyncio.ensure_future(documents.get(URI))
    await asyncio.sleep(0.05)
    doomed.cancel()
    await asyncio.sleep(0.01)
    release.set()
    parsed = await asyncio.wait_for(documents.get(URI), 10)
    assert parsed is not None and parsed.version == 1 and parsed.document.text == TEXT
    assert doomed.cancelled()


async def test_requests_of_one_version_share_one_parse() -> None:
    documents = ParsedDocuments(_Server())  # type: ignore[arg-type]
    first, second = await asyncio.gather(documents.get(URI), documents.get(URI))
    assert first is second is not None
