"""The tokens a relayed answer used, for an endpoint's `tpm` bucket (runner/limits/bucket.py):
read as the answer streams through the relay, from the Messages API's own counts — a JSON
answer's `usage`, or an SSE answer's `message_start` (input) and `message_delta` (output).

Only made when the endpoint has a `tpm` limit: reading every byte is not free.
"""

from __future__ import annotations

import json
from typing import Any

#: A JSON answer larger than this is not read for its usage (a runaway body, not a message).
_MAX_JSON = 4 * 1024 * 1024


class AnswerUsage:
    def __init__(self, content_type: str) -> None:
        self._events = "event-stream" in content_type
        self._pending = bytearray()
        self._input = 0
        self._output = 0

    def feed(self, chunk: bytes) -> None:
        self._pending += chunk
        if not self._events:
            if len(self._pending) > _MAX_JSON:
                self._pending.clear()
                self._events = True  # stop collecting; nothing is counted
            return
        *lines, rest = bytes(self._pending).split(b"\n")
        self._pending = bytearray(rest)
        for line in lines:
            if line.startswith(b"data:") and b'"usage"' in line:
                self._count(line[5:])

    def tokens(self) -> int:
        """Input + output tokens the answer reported (0 when it reported none)."""
        if not self._events and self._pending:
            self._count(bytes(self._pending))
            self._pending.clear()
        return self._input + self._output

    def split(self) -> tuple[int, int]:
        """(input, output) tokens the answer reported, for its `chat` span."""
        self.tokens()
        return self._input, self._output

    def _count(self, raw: bytes) -> None:
        try:
            data: Any = json.loads(raw)
        except ValueError:
            return
        if not isinstance(data, dict):
            return
        usage = data.get("usage") or (data.get("message") or {}).get("usage") or {}
        if not isinstance(usage, dict):
            return
        # message_start carries the input (and one output token), message_delta the output
        # so far: the largest of each is the answer's.
        self._input = max(self._input, int(usage.get("input_tokens") or 0))
        self._output = max(self._output, int(usage.get("output_tokens") or 0))
