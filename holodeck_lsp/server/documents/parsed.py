"""The parsed YAML of an open document, for the navigation features (hover, symbols, folding,
definition). The checker's own parse of each checked version is handed over by the diagnostics
module (`offer`), so nothing is parsed twice; a request for a version not checked yet (it
arrived within the debounce) parses it in a background thread, or waits for that parse.

These features read the YAML only, never the validated agent, so they work while validation
reports errors. A text that does not parse has no tree: the features answer null / empty; nor
has a text over the size limit (`size_limit`), which is never parsed.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.index import uri_to_path
from holodeck_lsp.server.documents.positions import PositionConverter
from holodeck_lsp.server.documents.size_limit import too_large

if TYPE_CHECKING:
    from holodeck_lsp.checker.yaml_document import YamlDocument


@dataclass(frozen=True, slots=True)
class Parsed:
    uri: str
    path: Path | None
    version: int | None
    document: YamlDocument
    converter: PositionConverter

    @property
    def agent_dir(self) -> Path | None:
        return None if self.path is None else self.path.parent


class ParsedDocuments:
    """One parse per (uri, version); requests for the same version share it."""

    def __init__(self, server: HolodeckServer) -> None:
        self.server = server
        self._cache: dict[str, Parsed] = {}
        self._pending: dict[str, tuple[int | None, str, Future[Parsed]]] = {}
        self._lock = threading.Lock()
        # One worker: only the latest version of a document matters, and parses are short.
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="holodeck-parse")

    def _parse(self, uri: str, version: int | None, text: str) -> Parsed:
        # Imported here: the YAML reader is not needed until the first document arrives.
        from holodeck_lsp.checker.yaml_document import parse_yaml

        parsed = Parsed(
            uri,
            uri_to_path(uri),
            version,
            parse_yaml(text),  # ${VAR}s are substituted as the checker does
            self.server.converter(text),
        )
        with self._lock:
            current = self._cache.get(uri)
            if current is None or current.document.text is not text:
                self._cache[uri] = parsed
        return parsed

    def offer(self, uri: str, version: int | None, document: YamlDocument) -> None:
        """The checker parsed `version` of `uri`: keep it when it is still the open text."""
        opened = self.server.workspace.text_documents.get(uri)
        if opened is None or opened.version != version or opened.source is not document.text:
            return
        parsed = Parsed(
            uri, uri_to_path(uri), version, document, self.server.converter(document.text)
        )
        with self._lock:
            self._cache[uri] = parsed

    def prefetch(self, uri: str) -> Future[Parsed] | None:
        """Start parsing the document's current text in the background (once per version)."""
        document = self.server.workspace.text_documents.get(uri)
        if document is None or too_large(document.source):
            return None
        text, version = document.source, document.version
        with self._lock:
            pending = self._pending.get(uri)
            if (
                pending is not None
                and pending[0] == version
                and pending[1] is text
                and not pending[2].cancelled()
            ):
                return pending[2]
            future = self._executor.submit(self._parse, uri, version, text)
            self._pending[uri] = (version, text, future)
        return future

    async def get(self, uri: str) -> Parsed | None:
        """The parsed document, or None when it is not open or its text does not parse. Waits
        (without blocking the event loop) for a parse of the current version in progress."""
        document = self.server.workspace.text_documents.get(uri)
        if document is None:
            self.forget(uri)
            return None
        text, version = document.source, document.version
        if too_large(text):
            return None
        with self._lock:
            cached = self._cache.get(uri)
        current = cached is not None and cached.version == version and cached.document.text is text
        if cached is None or not current:
            future = self.prefetch(uri)
            if future is None:
                return None
            # Shielded: the parse is shared by every request of the version; a cancelled
            # request must not cancel it (a queued parse would be, and every later request
            # of the version would then answer "canceled").
            cached = await asyncio.shield(asyncio.wrap_future(future))
            if cached.version != version or cached.document.text is not text:
                return None  # changed while we waited: this request is outdated
        if cached.converter.encoding != self.server.position_encoding:
            cached = self._parse(uri, version, text)
        return cached if cached.document.root is not None else None

    def peek(self, uri: str, version: int | None) -> Parsed | None:
        """The parse of `version` of an open document if one is cached — never parses; for
        callers on the event loop that must answer now (publishing diagnostics)."""
        document = self.server.workspace.text_documents.get(uri)
        with self._lock:
            cached = self._cache.get(uri)
        if (
            document is None
            or cached is None
            or cached.version != version
            or cached.document.text is not document.source
            or cached.document.root is None
            or cached.converter.encoding != self.server.position_encoding
        ):
            return None
        return cached

    def forget(self, uri: str) -> None:
        with self._lock:
            self._cache.pop(uri, None)
            self._pending.pop(uri, None)


_ATTRIBUTE = "_holodeck_parsed_documents"


def parsed_documents(server: HolodeckServer) -> ParsedDocuments:
    """The server's shared cache of parsed documents."""
    cache: ParsedDocuments | None = getattr(server, _ATTRIBUTE, None)
    if cache is None:
        cache = ParsedDocuments(server)
        setattr(server, _ATTRIBUTE, cache)
    return cache
