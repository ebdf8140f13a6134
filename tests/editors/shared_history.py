"""One run history stored by the real CLI (tests/server/runs/stored_history.make_history: the
suite's runs bad, good, bad), built once per test process and copied for each editor test
that reads it (Neovim's :HoloDeckCompare, eglot's and Kate's regression hovers; one xdist
group, so one worker): the CLI's three runs are the expensive part, and a copied folder lists
and compares the same stored runs (only `.holodeck/runs/*/journal.jsonl` still names the
folder it was run in, which nothing here reads)."""

from __future__ import annotations

import functools
import shutil
import tempfile
from pathlib import Path

from tests.server.runs.stored_history import make_history

#: The folder the template lives in, removed when the process ends.
_FOLDER: list[tempfile.TemporaryDirectory[str]] = []


@functools.cache
def _template() -> Path:
    _FOLDER.append(tempfile.TemporaryDirectory(prefix="editor-history-"))
    root = Path(_FOLDER[0].name) / "suite"
    root.mkdir()
    return make_history(root)


def history_copy(target: Path) -> Path:
    """A copy of the history at `target` (which must not exist yet); `target`."""
    shutil.copytree(_template(), target)
    return target
