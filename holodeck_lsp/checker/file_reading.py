"""The one way holodeck-lsp reads a file it did not write itself: only a regular file, and
only up to a size limit (docs/checks.md, "Limits on what is read").

Agent files, includes, tool and prompt files, stored runs, journals, cassettes, reports,
import sources and holodeck-lsp.yaml all come from a workspace that may be hostile: a named
pipe there would block a plain `read_text()` forever, `/dev/zero` (or a link to it) would be
read until memory runs out, and a 2 GB include would take a minute and gigabytes. So a file
is opened without blocking (`O_NONBLOCK`: opening a pipe with no writer returns at once), its
kind and size are taken from the open descriptor (`fstat`, so a file swapped after a check is
still caught), and at most the limit plus one byte is ever read (a file growing while read).

The refusals are `OSError`s: every reader already turns an `OSError` into its own message
naming the file, and the refusal's text says what the file is and how to raise the limit.
"""

from __future__ import annotations

import errno
import os
import stat

#: Raises (or lowers) the limit, in megabytes (MB = 1,000,000 bytes); read at each call, so
#: a test or a long-lived server sees a change made with `os.environ`.
LIMIT_VARIABLE = "HOLODECK_LSP_MAX_FILE_MB"
#: Five times the largest report a 1,000-case run writes (19 MB, docs/benchmarks.md).
#: docs/checks.md says why the limit is not a setting of the workspace.
DEFAULT_LIMIT_MB = 100
#: YAML costs far more per byte (composed with positions: ~1.5 s and 45 MB of memory per MB
#: of dense cases); more than ten times a 1,000-case suite of the sample's shape (1.4 MB).
DEFAULT_YAML_LIMIT_MB = 16
_MB = 1_000_000
_CHUNK = 1 << 20

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class FileRefused(OSError):
    """A file holodeck-lsp will not read: not a regular file, or over the size limit. The
    message names the file and says what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.strerror = message  # readers that show `error.strerror` show the whole message


class NotARegularFile(FileRefused):
    pass


class FileTooLarge(FileRefused):
    pass


def max_file_bytes(*, yaml: bool = False) -> int:
    """The size limit in bytes: $HOLODECK_LSP_MAX_FILE_MB megabytes for every file, else the
    default (the YAML one for the YAML files the checker composes). A value that is not a
    positive number is ignored: a typo must not lift the limit."""
    default = DEFAULT_YAML_LIMIT_MB if yaml else DEFAULT_LIMIT_MB
    raw = os.environ.get(LIMIT_VARIABLE, "").strip()
    try:
        megabytes = float(raw) if raw else default
    except ValueError:
        megabytes = default
    if not megabytes > 0 or megabytes == float("inf"):
        megabytes = default
    return int(megabytes * _MB)


def _size_text(size: int) -> str:
    if size >= _MB:
        return f"{size / _MB:,.1f} MB"
    return f"{size:,} bytes"


def too_large(path: str | os.PathLike[str], size: int | None, limit: int) -> FileTooLarge:
    """The refusal of a file over `limit` (`size` None: it grew past it while being read)."""
    shown_limit = _size_text(limit)
    if size is None:
        how_big = "larger than"
    elif _size_text(size) == shown_limit:  # just over: the bytes tell them apart
        how_big, shown_limit = f"{size:,} bytes, over", f"{limit:,}-byte"
    else:
        how_big = f"{_size_text(size)}, over"
    return FileTooLarge(
        f"{os.fspath(path)} is {how_big} the {shown_limit} limit on files holodeck-lsp "
        f"reads; if the file is meant to be this large, raise the limit with the environment "
        f"variable {LIMIT_VARIABLE} (in MB, e.g. {LIMIT_VARIABLE}={2 * limit // _MB}) where "
        "holodeck-lsp or your editor starts"
    )


def _refuse_kind(path: str | os.PathLike[str], mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    raise NotARegularFile(
        f"{os.fspath(path)} is {kind}, not a regular file; holodeck-lsp reads only regular "
        "files (a pipe or device could block or never end): point it at a file"
    )


def read_file_bytes(
    path: str | os.PathLike[str], limit: int | None = None, *, yaml: bool = False
) -> bytes:
    """The bytes of the regular file at `path` (symlinks followed); `FileRefused` when it is
    not a regular file or is larger than `limit` (default: `max_file_bytes(yaml=yaml)`), the
    usual `OSError`s when it cannot be opened."""
    limit = max_file_bytes(yaml=yaml) if limit is None else limit
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    descriptor = os.open(path, flags)
    try:
        status = os.fstat(descriptor)
        _refuse_kind(path, status.st_mode)
        if status.st_size > limit:
            raise too_large(path, status.st_size, limit)
        chunks: list[bytes] = []
        total = 0
        # A regular file of known size comes in one read, so joining copies nothing (a
        # 200 MB report, compared: docs/benchmarks.md); one byte more tells it grew.
        wanted = max(_CHUNK, status.st_size + 1)
        while True:
            chunk = os.read(descriptor, min(wanted, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise too_large(path, None, limit)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def read_file_text(
    path: str | os.PathLike[str],
    encoding: str = "utf-8",
    errors: str = "strict",
    *,
    yaml: bool = False,
) -> str:
    """`Path.read_text` through `read_file_bytes` (its universal newlines included: \\r\\n and
    \\r become \\n, as `open()` in text mode reads them); `yaml`: a YAML file the checker
    composes, with the YAML limit."""
    text = read_file_bytes(path, yaml=yaml).decode(encoding, errors)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text
