"""Writing an imported suite's files, the same way for every importer: an existing file is
replaced only with `--force` (the refusal names the first and counts the rest), a folder is
made as needed, and a file that cannot be written is named with the reason
(docs/importing.md, "Adding an importer")."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from holodeck_lsp.commands.import_.protocol import ImportRefused, ImportWriteFailed


def write_suite_files(
    output: Path, files: Mapping[str, str | bytes], *, force: bool
) -> tuple[Path, ...]:
    """Writes `files` (relative name -> text or bytes) below `output`; the paths written."""
    clashing = sorted(name for name in files if (output / name).exists())
    if clashing and not force:
        more = len(clashing) - 1
        raise ImportRefused(
            f"{output} already has {clashing[0]}"
            + (f" and {more} more of the suite's files" if more else "")
            + ": pass --force to replace them, or choose another --output"
        )
    written: list[Path] = []
    for name, content in files.items():
        target = output / name
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")
        except OSError as error:
            raise ImportWriteFailed(f"cannot write {target}: {error.strerror or error}") from None
        written.append(target)
    return tuple(written)
