"""Where a live agent's answers part from a recording whose user turns drive it ("replay
the user, live agent", docs/simulated-users.md, "Replay the user to a new agent").

The rule: turn N diverges when the agent's tool calls differ from the recorded turn's (the
names, in order, or the arguments of a call of the same name), or when its text is less than
`MIN_SIMILARITY` alike the recorded text (difflib's ratio over lower-cased words). From the
first such turn on, the recorded user messages answer a conversation that did not happen.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from holodeck_lsp.engine.turn_grading import TurnOutcome
from holodeck_lsp.runner.cassette.format import CassetteTurn

#: Below this text similarity (0..1) an answer no longer says what the recorded one said.
MIN_SIMILARITY = 0.5


def _words(text: str | None) -> list[str]:
    return re.findall(r"\w+", (text or "").lower())


def text_similarity(recorded: str | None, answered: str | None) -> float:
    a, b = _words(recorded), _words(answered)
    if not a and not b:
        return 1.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


class Divergence:
    """Compares each answered turn with the recorded turn of the same number."""

    def __init__(self, recorded: Sequence[CassetteTurn]) -> None:
        self._recorded = list(recorded)

    def compare(self, index: int, outcome: TurnOutcome) -> str | None:
        """How turn `index` diverged from the recording, or None."""
        if index >= len(self._recorded):
            return "the recording has no such turn"
        turn = self._recorded[index]
        recorded_calls = [(c.name, c.args) for c in turn.tool_calls]
        calls = [(c.name, c.args) for c in outcome.tool_invocations]
        if [name for name, _ in recorded_calls] != [name for name, _ in calls]:
            return (
                f"different tool calls: recorded {[n for n, _ in recorded_calls]}, "
                f"now {[n for n, _ in calls]}"
            )
        for (name, before), (_, now) in zip(recorded_calls, calls, strict=True):
            if before != now:
                return f"different arguments to {name}: recorded {before}, now {now}"
        similarity = text_similarity(turn.response, outcome.response)
        if similarity < MIN_SIMILARITY:
            return f"a different answer (text similarity {similarity:.2f} < {MIN_SIMILARITY})"
        return None
