"""A turn's `files:` -> what the backend sends with that turn (and only that turn).

Text and CSV travel as text, images as bytes with their media type. Office documents and PDFs
need extraction HoloDeck does with extra libraries; remote `url:` files need the network. Each
of those is a clear error on its turn rather than a silent omission, so a turn never passes
without the file it asserts about.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Sequence
from pathlib import Path

from holodeck_lsp.checker.file_reading import read_file_bytes, read_file_text
from holodeck_lsp.runner.backends.base import TurnFile
from holodeck_lsp.schema.test_case import FileInput

_TEXT_TYPES = {"text": "text/plain", "csv": "text/csv"}
_UNSUPPORTED = ("pdf", "excel", "word", "powerpoint")


def prepare_files(
    files: Sequence[FileInput] | None, agent_dir: Path
) -> tuple[list[TurnFile], list[str]]:
    """The files to send, and one error per file that cannot be sent."""
    prepared: list[TurnFile] = []
    errors: list[str] = []
    for entry in files or ():
        if entry.path is None:
            errors.append(
                f"file {entry.url}: url files are not supported by holodeck-lsp yet "
                "(a run never uses the network to fetch inputs); download it and use `path:`"
            )
            continue
        label = f"file {entry.path}"
        if entry.type in _UNSUPPORTED:
            errors.append(f"{label}: {entry.type} files are not supported by holodeck-lsp yet")
            continue
        path = agent_dir / entry.path
        try:
            if entry.type in _TEXT_TYPES:
                text = read_file_text(path, "utf-8")
                prepared.append(
                    TurnFile(
                        path=path,
                        kind="text",
                        media_type=_TEXT_TYPES[entry.type],
                        text=text,
                        description=entry.description,
                    )
                )
            else:  # image
                data = read_file_bytes(path)
                media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                prepared.append(
                    TurnFile(
                        path=path,
                        kind="image",
                        media_type=media_type,
                        data=data,
                        description=entry.description,
                    )
                )
        except UnicodeDecodeError:
            errors.append(f"{label}: not UTF-8 text (type {entry.type})")
        except OSError as error:
            errors.append(f"{label}: cannot read {path}: {error.strerror or error}")
    return prepared, errors
