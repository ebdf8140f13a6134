"""Answering `initialize` before pygls is imported, from the answer this server gave the same
client last time.

Spawn → initialize response is what an editor waits for before it shows the server as ready,
and most of it is `import lsprotocol.types` (half a second to a second on a busy two-core
machine; docs/benchmarks.md, "Cold start"). The answer itself depends only on what the client
sends (its capabilities and initializationOptions) and on this server's code, so it is cached:

1. Read the first message from stdin (standard library only, nothing of pygls yet).
2. When it is `initialize` and the cache holds the answer for the same client capabilities,
   initialization options and server code (a fingerprint of the package's files and of pygls
   and lsprotocol), write that answer at once.
3. Import and start the server as always, handing it the initialize request again (its
   settings, workspace and position encoding are set exactly as without this module); its own
   answer is compared with the one sent and dropped. A different answer (which the fingerprint
   should make impossible) replaces the cached one and is logged. Without a cached answer the
   server's own answer goes out as usual and is stored for the next start.

The client meanwhile sends `initialized`, `didOpen`, …; `early_diagnostics` may read the first
of them (to publish the opened agent files' diagnostics before pygls is imported), and the server
reads every byte again, in order (`PipeReader` keeps them, `ReplayingStdin` replays them).
`HOLODECK_LSP_EARLY_HANDSHAKE=0` turns this off; the cache is
`$XDG_CACHE_HOME/holodeck-lsp/handshake/` (else `~/.cache/…`): one small JSON file per client
set-up, holding capabilities only — the initialization options are hashed, never stored.
"""

from __future__ import annotations

# Standard library modules that are cheap to import, and no pathlib, logging or dataclasses:
# this runs before everything else, and each of those costs 10-30 ms on a busy machine.
import hashlib
import io
import json
import os
import select
import sys
from typing import Any, BinaryIO

SWITCH = "HOLODECK_LSP_EARLY_HANDSHAKE"
#: Bump when the cache's layout changes.
_LAYOUT = 1
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class EarlyStart:
    """What was read before the server started, and what was already answered."""

    def __init__(
        self,
        prefix: bytes,
        request_id: int | str | None = None,
        cache_file: str | None = None,
    ) -> None:
        #: The bytes read from stdin (the whole first message), for the server to read again.
        self.prefix = prefix
        #: The id of the initialize request (None: the first message was something else).
        self.request_id = request_id
        #: Where the answer for this client is cached (None: not cacheable).
        self.cache_file = cache_file
        #: The answer already sent (None: the server's own answer goes out).
        self.sent: Any = None
        #: Whether the server's answer for `request_id` has been seen.
        self.answered = False
        #: The initialize request's params (an empty mapping when there was none).
        self.params: dict[str, Any] = {}
        #: URI -> the check of an opened agent file made before the server started
        #: (`early_diagnostics`; an `Analysis`), for the server to take instead of checking again.
        self.checked: dict[str, Any] = {}


def _log() -> Any:
    import logging  # only when there is something to say

    return logging.getLogger("holodeck_lsp.server")


def enabled(env: dict[str, str] | os._Environ[str] = os.environ) -> bool:
    return env.get(SWITCH, "1").strip().lower() not in ("0", "false", "no", "off")


def read_message(stream: BinaryIO | PipeReader) -> tuple[bytes, Any] | None:
    """One JSON-RPC message: (its raw bytes, its parsed body); None at end of input or when
    it is not a well-formed message (the server then reads the same bytes and says so)."""
    raw = bytearray()
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        raw += line
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                return None
    if length is None:
        return None
    body = stream.read(length)
    raw += body
    try:
        return bytes(raw), json.loads(body)
    except ValueError:
        return bytes(raw), None


def answer_early(
    stdin: BinaryIO | PipeReader, stdout: BinaryIO, cache_root: str | None = None
) -> EarlyStart:
    """Read the first message; answer it from the cache when it is an `initialize` seen
    before. Never raises for what the client sent: anything unexpected is left to the server."""
    read = read_message(stdin)
    if read is None:
        return EarlyStart(b"")
    raw, message = read
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return EarlyStart(raw)
    request_id = message.get("id")
    if not isinstance(request_id, int | str):
        return EarlyStart(raw)
    params = message.get("params")
    cache_file = _cache_file(params if isinstance(params, dict) else {}, cache_root)
    early = EarlyStart(raw, request_id, cache_file=cache_file)
    early.params = params if isinstance(params, dict) else {}
    result = _cached(cache_file)
    if result is not None:
        stdout.write(frame({"jsonrpc": "2.0", "id": request_id, "result": result}))
        stdout.flush()
        early.sent = result
    return early


class PipeReader:
    """stdin read straight from its file descriptor, so that what has arrived can be asked
    without blocking (`wait`) — a buffered stream may hold bytes `select` cannot see. Every
    byte read is kept (`taken`): the server reads them all again (`ReplayingStdin`)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._taken = bytearray()
        self._position = 0

    def _fill(self) -> bool:
        chunk = os.read(self._fd, 65536)
        self._taken += chunk
        return bool(chunk)

    def wait(self, timeout_s: float) -> bool:
        """Whether a byte is ready within `timeout_s` (an end of input counts as ready)."""
        if self._position < len(self._taken):
            return True
        readable, _, _ = select.select([self._fd], [], [], timeout_s)
        return bool(readable)

    def readline(self) -> bytes:
        while True:
            end = self._taken.find(b"\n", self._position)
            if end >= 0:
                line = bytes(self._taken[self._position : end + 1])
                self._position = end + 1
                return line
            if not self._fill():
                line = bytes(self._taken[self._position :])
                self._position = len(self._taken)
                return line

    def read(self, size: int) -> bytes:
        while len(self._taken) - self._position < size and self._fill():
            pass
        data = bytes(self._taken[self._position : self._position + size])
        self._position += len(data)
        return data

    def taken(self) -> bytes:
        """Everything read from the descriptor so far, consumed or not."""
        return bytes(self._taken)


def frame(message: Any) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class ReplayingStdin:
    """stdin for the server: the bytes already read first, then the real stream."""

    def __init__(self, prefix: bytes, real: BinaryIO) -> None:
        self._prefix = io.BytesIO(prefix)
        self._real = real

    def readline(self) -> bytes:
        line = self._prefix.readline()
        return line if line else self._real.readline()

    def read(self, size: int = -1) -> bytes:
        data = self._prefix.read(size)
        if size < 0:
            return data + self._real.read()
        if len(data) < size:
            data += self._real.read(size - len(data))
        return data

    def close(self) -> None:
        self._real.close()


class AnsweredStdout:
    """stdout for the server: its answer to the initialize request already answered is
    dropped (and checked against the one sent); an answer not sent yet is cached."""

    def __init__(self, early: EarlyStart, real: BinaryIO) -> None:
        self._early = early
        self._real = real

    def write(self, data: bytes) -> int:
        early = self._early
        if early.request_id is not None and not early.answered:
            result = _initialize_result(data, early.request_id)
            if result is not _NOT_IT:
                early.answered = True
                _settle(early, result)
                if early.sent is not None:
                    return len(data)
        return self._real.write(data)

    def flush(self) -> None:
        self._real.flush()

    def close(self) -> None:
        self._real.close()


_NOT_IT = object()


def _initialize_result(data: bytes, request_id: int | str) -> Any:
    """The result in `data` when it is the answer to `request_id`, else _NOT_IT."""
    _, separator, body = data.partition(b"\r\n\r\n")
    if not separator:
        return _NOT_IT
    try:
        message = json.loads(body)
    except ValueError:
        return _NOT_IT
    if not isinstance(message, dict) or message.get("id") != request_id:
        return _NOT_IT
    return message.get("result", _NOT_IT)


def _settle(early: EarlyStart, result: Any) -> None:
    if result is _NOT_IT or early.cache_file is None:
        return
    if early.sent is not None and early.sent == result:
        return
    if early.sent is not None:
        _log().warning("the cached initialize answer differed from this server's; replaced it")
    _store(early.cache_file, result)


def _cache_file(params: dict[str, Any], cache_root: str | None) -> str | None:
    root = cache_root if cache_root is not None else _cache_root()
    if root is None:
        return None
    key = json.dumps(
        {
            "layout": _LAYOUT,
            "capabilities": params.get("capabilities"),
            "initializationOptions": params.get("initializationOptions"),
            "code": code_fingerprint(),
        },
        sort_keys=True,
        default=str,
    )
    return os.path.join(root, f"{hashlib.sha256(key.encode('utf-8')).hexdigest()[:32]}.json")


def _cache_root() -> str | None:
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if not base:
        home = os.path.expanduser("~")
        if home == "~":
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "holodeck-lsp", "handshake")


def code_fingerprint() -> str:
    """What the answer depends on besides the client: every module of this package (size and
    modification time) and the pygls and lsprotocol installed, found without importing them."""
    digest = hashlib.sha256(sys.version.encode())
    for folder, folders, files in os.walk(_PACKAGE):
        folders[:] = sorted(name for name in folders if name != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                _stamp(digest, os.path.join(folder, name))
    for library in ("pygls", "lsprotocol"):
        location = _installed(library)
        if location is None:
            continue
        for name in sorted(os.listdir(location)):
            if name.endswith(".py"):
                _stamp(digest, os.path.join(location, name))
    return digest.hexdigest()


def _installed(package: str) -> str | None:
    """The folder `import package` would load, found on sys.path without importing."""
    for entry in sys.path:
        folder = os.path.join(entry or ".", package)
        if os.path.isfile(os.path.join(folder, "__init__.py")):
            return folder
    return None


def _stamp(digest: Any, path: str) -> None:
    try:
        status = os.stat(path)
    except OSError:
        return
    digest.update(f"{path}\0{status.st_size}\0{status.st_mtime_ns}\n".encode())


def _cached(path: str | None) -> Any:
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            result = json.load(handle)
    except (OSError, ValueError):
        return None
    # A cached answer is a mapping with capabilities; anything else is not ours to send.
    return result if isinstance(result, dict) and "capabilities" in result else None


def _store(path: str, result: Any) -> None:
    """Atomically (write, then rename): a concurrent start reads the old file or the new."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temporary = f"{path}.{os.getpid()}.tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(result, handle)
        os.replace(temporary, path)
    except OSError as error:  # a read-only home: the next start is just not faster
        _log().info("cannot cache the initialize answer in %s: %s", os.path.dirname(path), error)
