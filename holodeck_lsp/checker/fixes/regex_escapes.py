"""HD120: escape only the character(s) that stop a regex from compiling.

`re` reports where it gave up (`error.pos`): an unbalanced `(` or `)`, an unterminated `[`, a
quantifier with nothing to repeat (`+1 555`, `a**`), a backslash before nothing or before a
letter that is no escape, a reversed range in a set. Each time the character there is one
that is special only as syntax, we escape it and compile again — so `(?i)`, `\\s*` and every
other construct the author wrote stay exactly as written. Anything else (a bad group name,
misplaced flags, `a{2,1}`) gets no fix here: only "match literally" or the author's edit.
"""

from __future__ import annotations

import re

#: Characters escaped when `re` stops at them; the rest are not ours to guess about.
_ESCAPABLE = frozenset("()[+*?\\")
#: More than any sane pattern needs; every round adds one escape, so the loop ends anyway.
_MAX_ROUNDS = 50


def escape_offending(pattern: str) -> tuple[str, list[str]] | None:
    """`pattern` with the offending characters escaped and which ones they were, or None
    when it compiles already or cannot be fixed that way."""
    escaped: list[str] = []
    for _ in range(_MAX_ROUNDS):
        try:
            re.compile(pattern)
        except re.error as error:
            where = _offending(pattern, error)
            if where is None:
                return None
            escaped.append(pattern[where])
            pattern = pattern[:where] + "\\" + pattern[where:]
            continue
        except (RecursionError, OverflowError, ValueError):
            return None
        return (pattern, escaped) if escaped else None
    return None


def _offending(pattern: str, error: re.error) -> int | None:
    """Index of the character to escape for `error`, or None."""
    position = error.pos
    if position is None or not 0 <= position < len(pattern):
        return None
    if error.msg.startswith("bad character range"):
        # The range starts at `position` (`z-a`): its dash makes it a range.
        dash = pattern.find("-", position)
        return dash if dash > position else None
    char = pattern[position]
    if char not in _ESCAPABLE:
        return None
    if char == "\\" and error.msg.startswith("bad escape") and _is_group_reference(error.msg):
        return None  # `\2` with one group: the author meant a reference, not a backslash
    if char == "(" and not error.msg.startswith(("missing )", "unterminated subpattern")):
        return None  # `(?P<…` and other group syntax problems: not an unbalanced paren
    return position


def _is_group_reference(message: str) -> bool:
    return bool(re.match(r"bad escape \\\d", message)) or "invalid group reference" in message
