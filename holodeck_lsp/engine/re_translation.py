"""Python `re` semantics on the `regex` engine: translate what `re` parsed into a pattern
that `regex` cannot read any other way.

Why: regex matchers must give exactly `re.fullmatch`'s answer (the contract says `re`), but
`re` cannot be interrupted, so a catastrophic pattern would hang the run. The `regex`
package can time out, yet it reads some pattern *text* differently (`ab{e<=1}` is fuzzy
matching there and literal text in `re`; `[[:digit:]]` is a POSIX class there and a set in
`re`; its `\\w`, `\\s` and `\\b` follow its own Unicode tables). So we never hand it the
user's text: `re`'s own parser reads the pattern, and every node of the parse tree is
written out in a form that has one meaning in both engines:

* every character is an escape (`\\U0001f600`), never a character `regex` might treat as
  syntax;
* every one-character matcher whose meaning depends on tables or flags (`\\d` `\\w` `\\s`,
  sets, anything under IGNORECASE) is run by both engines over all of Unicode once (cached):
  when `regex` matches exactly the code points `re` matches, the short spelling is kept;
  otherwise it becomes the explicit set of code points `re` matches — so even
  Unicode-version differences between the engines cannot leak in;
* anchors and word boundaries become lookarounds over those explicit sets;
* groups, alternation, repeats (greedy, lazy, possessive), atomic groups, lookarounds,
  backreferences and conditionals map one to one, with group numbers kept.

The one approximation: a backreference under IGNORECASE compares with `regex`'s case folding
(`re` compares lower-cased characters); they differ only for a few special letters.
"""

from __future__ import annotations

import array
import re
import sys
import warnings
from functools import cache, lru_cache

# re's own parser and opcode names (private but stable within a Python version; no stubs).
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser as P  # type: ignore[attr-defined]
from typing import Any, Final

__all__ = ["NotTranslatable", "translate"]

_ALL_CODE_POINTS: Final = 0x110000
_NEWLINE: Final = "\\U0000000a"


class NotTranslatable(ValueError):
    """The parse tree holds a node this module does not know (a newer Python's `re`)."""


@cache
def _every_character() -> str:
    # Built once, on the first pattern that needs a table (4 MB); a one-character matcher
    # is then found by one C-speed `re` scan over it. Decoded from the code points' UTF-32
    # bytes (surrogates passed through): a quarter of the time of joining a million `chr`s,
    # paid by every process that runs the sample's matchers (docs/benchmarks.md, "Start-up
    # cost, issue 37 item 7").
    codes = array.array("I", range(_ALL_CODE_POINTS))
    if codes.itemsize != 4:  # a platform whose C unsigned int is not 32 bits
        return "".join(map(chr, range(_ALL_CODE_POINTS)))
    codec = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"
    return codes.tobytes().decode(codec, "surrogatepass")


def _escape(code: int) -> str:
    return f"\\U{code:08x}"


def _runs(pattern: Any) -> list[tuple[int, int]]:
    return [run.span() for run in pattern.finditer(_every_character())]


@lru_cache(maxsize=1024)
def _matched_set(item: str, flags: int) -> str:
    """A `regex` pattern for exactly the code points `re` matches with the one-character
    pattern `item` under `flags`: `item` itself when `regex` provably matches the very same
    code points with it (checked over all of Unicode, on this machine's tables), otherwise
    the explicit class of what `re` matches. The short form keeps compiling fast."""
    theirs = _runs(re.compile(f"(?:{item})+", flags))
    letters = ("i" if flags & re.IGNORECASE else "") + ("a" if flags & re.ASCII else "")
    native = f"(?{letters}:{item})" if letters else item
    import regex  # here, as engine/matchers.py imports it: on the first regex run

    try:
        if _runs(regex.compile(f"(?:{native})+", regex.V0)) == theirs:
            return native
    except regex.error:
        pass
    parts: list[str] = []
    for start, end in theirs:
        last = end - 1
        parts.append(_escape(start) if start == last else f"{_escape(start)}-{_escape(last)}")
    return f"[{''.join(parts)}]" if parts else "(?!)"


_CATEGORY_TEXT: Final = {
    C.CATEGORY_DIGIT: r"\d",
    C.CATEGORY_NOT_DIGIT: r"\D",
    C.CATEGORY_SPACE: r"\s",
    C.CATEGORY_NOT_SPACE: r"\S",
    C.CATEGORY_WORD: r"\w",
    C.CATEGORY_NOT_WORD: r"\W",
}

#: The flags that change what a set, a category or a literal matches (`.` is written out).
_CHAR_FLAGS: Final = re.IGNORECASE | re.ASCII


def _re_set_text(items: list[tuple[Any, Any]]) -> str:
    """An `re` pattern for the set `items` (a parse-tree IN node), unambiguous to `re`."""
    parts: list[str] = []
    for op, value in items:
        if op is C.NEGATE:
            parts.insert(0, "^")
        elif op is C.LITERAL:
            parts.append(_escape(value))
        elif op is C.RANGE:
            parts.append(f"{_escape(value[0])}-{_escape(value[1])}")
        elif op is C.CATEGORY:
            parts.append(_CATEGORY_TEXT[value])
        else:
            raise NotTranslatable(f"set member {op}")
    return f"[{''.join(parts)}]"


class _Writer:
    def sequence(self, nodes: Any, flags: int) -> str:
        return "".join(self.node(op, value, flags) for op, value in nodes)

    def single(self, re_text: str, flags: int) -> str:
        return _matched_set(re_text, flags & _CHAR_FLAGS)

    def word(self, flags: int) -> str:
        return self.single(r"\w", flags & re.ASCII)

    def node(self, op: Any, value: Any, flags: int) -> str:
        ignore = bool(flags & re.IGNORECASE)
        if op is C.LITERAL:
            return self.single(_escape(value), flags) if ignore else _escape(value)
        if op is C.NOT_LITERAL:
            if ignore:
                return self.single(f"[^{_escape(value)}]", flags)
            return f"[^{_escape(value)}]"
        if op is C.ANY:
            return "(?s:.)" if flags & re.DOTALL else f"[^{_NEWLINE}]"
        if op is C.IN:
            plain = not ignore and all(kind is not C.CATEGORY for kind, _ in value)
            # Escaped literals and ranges mean the same in both engines: no table needed.
            return _re_set_text(value) if plain else self.single(_re_set_text(value), flags)
        if op is C.AT:
            return self.anchor(value, flags)
        if op is C.BRANCH:
            return "(?:" + "|".join(self.sequence(alt, flags) for alt in value[1]) + ")"
        if op is C.SUBPATTERN:
            group, add, remove, body = value
            inner = self.sequence(body, (flags | add) & ~remove)
            return f"({inner})" if group else f"(?:{inner})"
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            low, high, body = value
            bounds = f"{{{low},}}" if high is C.MAXREPEAT else f"{{{low},{high}}}"
            suffix = {C.MAX_REPEAT: "", C.MIN_REPEAT: "?", C.POSSESSIVE_REPEAT: "+"}[op]
            return f"(?:{self.sequence(body, flags)}){bounds}{suffix}"
        if op is C.ATOMIC_GROUP:
            return f"(?>{self.sequence(value, flags)})"
        if op is C.GROUPREF:
            return f"(?i:\\g<{value}>)" if ignore else f"\\g<{value}>"
        if op is C.GROUPREF_EXISTS:
            group, yes, no = value
            other = "" if no is None else "|" + self.sequence(no, flags)
            return f"(?({group}){self.sequence(yes, flags)}{other})"
        if op in (C.ASSERT, C.ASSERT_NOT):
            direction, body = value
            kind = (
                ("=" if op is C.ASSERT else "!")
                if direction == 1
                else ("<=" if op is C.ASSERT else "<!")
            )
            return f"(?{kind}{self.sequence(body, flags)})"
        raise NotTranslatable(f"pattern element {op}")

    def anchor(self, at: Any, flags: int) -> str:
        multiline = bool(flags & re.MULTILINE)
        if at is C.AT_BEGINNING_STRING or (at is C.AT_BEGINNING and not multiline):
            return r"\A"
        if at is C.AT_BEGINNING:
            return f"(?:\\A|(?<={_NEWLINE}))"
        if at is C.AT_END_STRING:
            return r"\Z"
        if at is C.AT_END:
            return f"(?={_NEWLINE}|\\Z)" if multiline else f"(?={_NEWLINE}?\\Z)"
        word = self.word(flags)
        if at is C.AT_BOUNDARY:
            return f"(?:(?<={word})(?!{word})|(?<!{word})(?={word}))"
        if at is C.AT_NON_BOUNDARY:
            # `re` never matches \B in an empty string.
            return f"(?!\\A\\Z)(?:(?<={word})(?={word})|(?<!{word})(?!{word}))"
        raise NotTranslatable(f"anchor {at}")


def translate(pattern: str, flags: int) -> str:
    """A `regex` (VERSION0, no flags) pattern that matches exactly what `re.compile(pattern,
    flags)` matches. Raises `re.error` for a pattern `re` rejects and `NotTranslatable` for
    syntax this module does not know."""
    with warnings.catch_warnings():
        # re warns about "possible nested set" etc.; the loader reported it already.
        warnings.simplefilter("ignore")
        tree = P.parse(pattern, flags)
    return _Writer().sequence(tree.data, tree.state.flags)
