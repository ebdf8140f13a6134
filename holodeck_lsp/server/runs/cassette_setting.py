"""The `holodeck.cassettePath` setting: which cassette file it names (relative to the agent's
folder, else to a workspace folder), and that cassette read for re-grading on edit (read
again only when the file changed)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.index import uri_to_path

if TYPE_CHECKING:
    from holodeck_lsp.runner.cassette import Cassette

log = logging.getLogger("holodeck_lsp.server.runs")


class RunRefused(Exception):
    """The run cannot start; the message is shown to the user."""


def cassette_path(server: HolodeckServer, agent_dir: Path) -> Path | None:
    """The setting's cassette; None without the setting. Raises `RunRefused` when it names
    no file."""
    configured = server.settings.cassette_path
    if not configured:
        return None
    given = Path(configured).expanduser()
    if given.is_absolute():
        return given
    candidates = [agent_dir / given]
    for folder in server.workspace.folders.values():
        root = uri_to_path(folder.uri)
        if root is not None:
            candidates.append(root / given)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    tried = ", ".join(str(c) for c in candidates)
    raise RunRefused(f"cassette {configured!r} (setting holodeck.cassettePath) not found: {tried}")


class SettingsCassette:
    """The setting's cassette as last read, for transcripts to re-grade from."""

    def __init__(self, server: HolodeckServer) -> None:
        self._server = server
        self._cached: tuple[Path, float, Cassette] | None = None

    def get(self, agent_dir: Path) -> Cassette | None:
        from holodeck_lsp.runner.cassette import CassetteFormatError, load_cassette

        try:
            path = cassette_path(self._server, agent_dir)
            if path is None:
                return None
            mtime = path.stat().st_mtime
            if self._cached is not None and self._cached[:2] == (path, mtime):
                return self._cached[2]
            cassette = load_cassette(path)
        except (RunRefused, OSError, CassetteFormatError) as error:
            log.info("no cassette to re-grade from: %s", error)
            return None
        self._cached = (path, mtime, cassette)
        return cassette
