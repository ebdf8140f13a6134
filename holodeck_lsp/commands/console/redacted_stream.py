"""stdout with the run's secrets masked: progress lines carry case names, answers and errors,
any of which may hold a key or a `${VAR}` value."""

from __future__ import annotations

from holodeck_lsp.commands.console.text_stream import TextStream
from holodeck_lsp.runner.secrets import Redactor


class RedactedStream:
    def __init__(self, inner: TextStream, redactor: Redactor) -> None:
        self._inner = inner
        self._redactor = redactor
        self.encoding: str = getattr(inner, "encoding", None) or "utf-8"

    def write(self, text: str, /) -> int:
        return self._inner.write(self._redactor.text(text))

    def flush(self) -> None:
        self._inner.flush()

    def isatty(self) -> bool:
        return self._inner.isatty()
