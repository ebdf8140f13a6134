"""The files of a suite — an agent file and the `test_cases_file` it includes — read for the
features that work across them (references, rename, workspace symbols). An open document is
read from the editor (its unsaved text), any other file from disk; each file is composed once
per text and its names (`suite_names`) found once.

Composing is all: nothing is validated, so a suite with errors still renames.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.index import path_key, path_to_uri, uri_to_path
from holodeck_lsp.server.documents.parsed import parsed_documents
from holodeck_lsp.server.documents.positions import PositionConverter
from holodeck_lsp.server.documents.size_limit import too_large
from holodeck_lsp.server.documents.suite_names import NameSpan, suite_names

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

INCLUDE_KEY = "test_cases_file"


@dataclass(frozen=True, slots=True)
class SuiteFile:
    uri: str
    path: Path
    text: str
    root: Node | None
    names: list[NameSpan]
    converter: PositionConverter

    def include(self) -> Path | None:
        """The file this agent's `test_cases_file` names (whether it exists or not)."""
        from holodeck_lsp.checker.suite_locator import scalar_text

        named = scalar_text(self.root, INCLUDE_KEY)
        if named is None or not named[1].strip():
            return None
        return self.path.parent / named[1].strip()


class SuiteFiles:
    """Composed files, kept per text (open documents) or per (mtime, size) (files on disk)."""

    def __init__(self, server: HolodeckServer) -> None:
        self.server = server
        self._cache: dict[str, tuple[object, SuiteFile]] = {}
        self._lock = threading.Lock()

    def _open_uri(self, path: Path) -> str | None:
        key = path_key(path)
        for uri in list(self.server.workspace.text_documents):
            open_path = uri_to_path(uri)
            if open_path is not None and path_key(open_path) == key:
                return str(uri)
        return None

    def load(self, path: Path) -> SuiteFile | None:
        """The file, from the editor when it is open; None when it cannot be read."""
        from holodeck_lsp.checker.yaml_document import compose

        uri = self._open_uri(path)
        root: Node | None = None
        if uri is not None:
            document = self.server.workspace.text_documents[uri]
            text: str = document.source
            stamp: object = ("open", id(text), document.version)
            parsed = parsed_documents(self.server).peek(uri, document.version)
            if parsed is not None:
                root = parsed.document.root
        else:
            try:
                status = os.stat(path)
            except OSError:
                return None
            stamp = ("disk", status.st_mtime_ns, status.st_size)
            text = ""
        key = path_key(path)
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        if uri is None:
            try:
                text = read_file_text(path, "utf-8-sig", yaml=True)
            except (OSError, UnicodeDecodeError):
                return None
        if root is None and not too_large(text):  # over the limit: never composed
            try:
                root = compose(text)
            except Exception:  # a file that does not compose has no names (never an error)
                root = None
        found = SuiteFile(
            uri or path_to_uri(path),
            path,
            text,
            root,
            suite_names(root),
            self.server.converter(text),
        )
        with self._lock:
            self._cache[key] = (stamp, found)
        return found

    def offer(self, path: Path, text: str, root: Node | None) -> None:
        """The checker composed the include at `path` from `text`: keep its tree while the
        file on disk still holds that text (so a rename need not compose it again)."""
        if self._open_uri(path) is not None:
            return  # an open include is read from the editor
        try:
            status = os.stat(path)
            if read_file_text(path, "utf-8-sig", yaml=True) != text:
                return
        except (OSError, UnicodeDecodeError):
            return
        found = SuiteFile(
            path_to_uri(path), path, text, root, suite_names(root), self.server.converter(text)
        )
        with self._lock:
            self._cache[path_key(path)] = (("disk", status.st_mtime_ns, status.st_size), found)

    def suite(self, agent: Path) -> list[SuiteFile]:
        """The agent file and its include (when it has one that can be read)."""
        loaded = self.load(agent)
        if loaded is None:
            return []
        files = [loaded]
        include = loaded.include()
        if include is not None and path_key(include) != path_key(agent):
            included = self.load(include)
            if included is not None:
                files.append(included)
        return files


_ATTRIBUTE = "_holodeck_suite_files"


def suite_files(server: HolodeckServer) -> SuiteFiles:
    """The server's shared cache of suite files."""
    cache: SuiteFiles | None = getattr(server, _ATTRIBUTE, None)
    if cache is None:
        cache = SuiteFiles(server)
        setattr(server, _ATTRIBUTE, cache)
    return cache
