"""'Did you mean …?' — one rule for every typo hint (unknown keys, choices, tool names,
arguments, grader attributes), so they feel the same everywhere and quick fixes can apply
the suggestion stored in a diagnostic's `data["suggestion"]`."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: How similar a word must be (difflib ratio) to be suggested.
CUTOFF = 0.6


def closest(word: str, options: Iterable[str], cutoff: float = CUTOFF) -> str | None:
    matches = difflib.get_close_matches(word, list(options), n=1, cutoff=cutoff)
    return matches[0] if matches else None


def did_you_mean(suggestion: str | None, quote: str = "`") -> str:
    """`; did you mean `x`?` — or nothing when there is no suggestion."""
    return f"; did you mean {quote}{suggestion}{quote}?" if suggestion else ""


def suggestion_data(suggestion: str | None) -> dict[str, str]:
    return {"suggestion": suggestion} if suggestion else {}
