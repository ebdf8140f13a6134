"""Where the console writes: the stream protocol, and stdout with the run's secrets masked."""

from __future__ import annotations

from typing import Protocol


class TextStream(Protocol):
    """Where the display writes (sys.stdout, or a wrapper that masks secrets)."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...

    def isatty(self) -> bool: ...
