"""The marks of a turn on the console: ✓ ✗ – ! where the stream can encode them, else words.
`!` is an errored turn: the provider could not answer, so it is not measured."""

from __future__ import annotations

from holodeck_lsp.schema.results import TurnResult


class Marks:
    def __init__(self, stream: object) -> None:
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            "✓✗–".encode(encoding)
            self.passed, self.failed, self.skipped = "✓", "✗", "–"
        except (UnicodeEncodeError, LookupError):
            self.passed, self.failed, self.skipped = "ok", "FAIL", "skip"
        self.errored = "!" if self.passed == "✓" else "ERR"

    def of(self, turn: TurnResult) -> str:
        if turn.skipped:
            return self.skipped
        if turn.errored:
            return self.errored
        return self.passed if turn.passed else self.failed
