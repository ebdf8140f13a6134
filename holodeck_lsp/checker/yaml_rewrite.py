"""Text the C composer (libyaml) refuses but HoloDeck's PyYAML `safe_load` reads, made readable
without moving a single position (docs/checks.md, "Reading YAML like HoloDeck does").

libyaml and PyYAML's pure-Python scanner disagree on a few forms. Where PyYAML reads a text
that libyaml refuses, the text handed to the composer is changed character for character (the
same number of code points, so every mark stays where it is) and the values are put back
after composing:

- a `:` inside a plain scalar in a flow collection (`{endpoint: http://localhost:11434}`,
  `[http://a.example]`): libyaml stops with "found unexpected ':'", PyYAML keeps it in the
  scalar. It becomes a private-use character while composing.
- a tab where libyaml is still looking for a block scalar's indentation (`|-` then a line
  ` <tab>bar`): PyYAML counts only spaces as indentation and keeps the tab as content.
- directives: PyYAML ignores an unknown directive (`%FOO bar`) and accepts any `%YAML 1.x`;
  libyaml refuses both. An unknown directive becomes a comment, the version `1.1`; what PyYAML
  still requires of directives (a well-formed `%YAML` line, `---` after them) is checked here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from ruamel.yaml.error import MarkedYAMLError, StreamMark
from ruamel.yaml.nodes import Node, ScalarNode

#: Stand-ins (one code point each) for the characters libyaml refuses where PyYAML reads them
#: are taken from Unicode's private-use area, which no agent file uses.
_PRIVATE_USE_START, _PRIVATE_USE_END = 0xE000, 0xF900
#: A `:` libyaml refuses in a flow plain scalar: after a scalar character, before one.
_FLOW_COLON = re.compile(r"(?<=[^\s\"'\]}\[{,]):(?=[^\s,\[\]{}])")
#: Re-composing after a stand-in fixes one refusal (the common ones are fixed in bulk on the
#: first): at most this many attempts, and this many characters composed in all, so a hostile
#: text cannot loop for long.
_MAX_ATTEMPTS = 64
_MAX_CHARACTERS = 8_000_000
_LEADING_TAB = re.compile(r"(?m)^( *)\t")
#: An entry's start (`,`, `[`, `{`) or a `:` that may end a key before an omitted value.
_EMPTY_VALUE_COLON = re.compile(r"[,\[{]|(?<=[^\s\"'\]}\[{,]):(?=[,}\]])")
_BLANK_OR_END = frozenset(" \r\n\x85\u2028\u2029")
_DIRECTIVE_NAME = re.compile(r"[0-9A-Za-z_-]*")
_VERSION = re.compile(r" *([0-9]+)\.([0-9]+)")
_LINE_BREAK = "\n"


class DirectiveError(MarkedYAMLError):
    """What PyYAML raises about a directive that libyaml would have let through."""


def compose_as_pyyaml(text: str, compose_raw: Callable[[str], Node | None]) -> Node | None:
    """`compose_raw(text)`, with the forms above made readable first; raises what PyYAML's
    reading would raise (as far as the composer can tell)."""
    prepared = _prepare_directives(text) if _has_directive(text) else text
    stand_ins: StandIns | None = None
    done: set[str] = set()  # the kinds of refusal already rewritten in bulk
    for _ in range(_attempts(len(text))):
        try:
            root = compose_raw(prepared)
        except MarkedYAMLError as error:
            stand_ins = stand_ins or StandIns.free_in(text)
            rewritten = _rewrite_for(prepared, error, stand_ins, done)
            if rewritten is None:
                raise
            prepared = rewritten
            continue
        if stand_ins is not None and root is not None:
            _restore(root, stand_ins)
        return root
    return compose_raw(prepared)


@dataclass(frozen=True, slots=True)
class StandIns:
    """The private-use characters standing in for `:` and tab in one text: the first ones
    that do not occur in it."""

    colon: str
    tab: str
    #: A `:` ending a key whose value is omitted (`{key:,}`).
    empty_value: str

    @classmethod
    def free_in(cls, text: str) -> StandIns | None:
        free: list[str] = []
        for code in range(_PRIVATE_USE_START, _PRIVATE_USE_END):
            if chr(code) not in text:
                free.append(chr(code))
                if len(free) == 3:
                    return cls(free[0], free[1], free[2])
        return None  # a text holding every private-use character: nothing is rewritten


def _attempts(size: int) -> int:
    return max(3, min(_MAX_ATTEMPTS, _MAX_CHARACTERS // max(size, 1)))


def _is_flow_colon(error: MarkedYAMLError) -> bool:
    return "plain scalar" in (error.context or "") and "unexpected ':'" in (error.problem or "")


def _rewrite_for(
    text: str, error: MarkedYAMLError, stand_ins: StandIns | None, done: set[str]
) -> str | None:
    """`text` with the character libyaml refused replaced by its stand-in, or None when the
    error is one PyYAML makes too."""
    mark = error.problem_mark
    if stand_ins is None or mark is None or not 0 <= mark.index < len(text):
        return None
    at = mark.index
    if _is_flow_colon(error) and text[at] == ":":
        after = text[at + 1 : at + 2]
        if after in (",", "}", "]"):
            # `{omitted value:,}`: PyYAML ends the key there, the value is null.
            entry_start = max(text.rfind(opener, 0, at) for opener in ",[{") + 1
            if not _simple_key(text[entry_start:at]):
                return None
            if "empty" not in done:
                done.add("empty")
                text = _replace_empty_values(text, stand_ins.empty_value)
            return text[:at] + stand_ins.empty_value + text[at + 1 :]
        if not after or after in _BLANK_OR_END or after in "[{\t":
            return None  # PyYAML ends the scalar there too
        if "colon" not in done:
            done.add("colon")
            text = _replace_flow_colons(text, stand_ins.colon)
        return text[:at] + stand_ins.colon + text[at + 1 :]
    problem = error.problem or ""
    if "tab character where an indentation space" in problem and text[at] == "\t":
        if "tab" not in done:
            # Every line's first tab after its spaces at once: where it is not a block
            # scalar's content, `yaml_scanner_rules` still reports it (the tab rule reads
            # the original text).
            done.add("tab")
            text = _LEADING_TAB.sub(lambda match: match.group(1) + stand_ins.tab, text)
        return text[:at] + stand_ins.tab + text[at + 1 :]
    return None


def _simple_key(entry: str) -> bool:
    """Whether PyYAML reads a `:` after `entry` (the text since the last `,`, `[` or `{`) as
    ending a key: not after the entry's own `key: value`, nor after a key running over lines
    or past 1024 characters (not a "simple key")."""
    entry = entry.lstrip()
    return len(entry) <= 1024 and not any(c in entry for c in (": ", ":\t", "\n", "\r"))


def _replace_empty_values(text: str, stand_in: str) -> str:
    """Every `key:` right before `,`, `}` or `]` that may end a simple key in a flow
    collection, marked at once. Put back, the stand-in is dropped where it ends a scalar (a
    key whose value is null: `{key: null}`, or `key` in a flow list) and is a `:` again
    elsewhere (inside a block-context scalar such as `a:,` or quoted text)."""
    pieces: list[str] = []
    last = entry_start = 0
    for match in _EMPTY_VALUE_COLON.finditer(text):
        if match.group() != ":":
            entry_start = match.end()
            continue
        at = match.start()
        if _simple_key(text[entry_start:at]):
            pieces.append(text[last:at])
            pieces.append(stand_in)
            last = at + 1
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


def _replace_flow_colons(text: str, stand_in: str) -> str:
    """Every `:` that may sit inside a flow plain scalar, replaced at once (one re-compose
    instead of one per URL). Outside flow collections such a `:` is inside a plain scalar for
    both parsers, or in a comment or quoted text, so the stand-in changes nothing there once
    put back; tags, anchors, aliases and directives are left alone."""
    pieces: list[str] = []
    last = 0
    # Each search looks back only to the previous `:`, so a long line costs linear time.
    previous, line_start, token_start = 0, 0, 0
    for match in _FLOW_COLON.finditer(text):
        at = match.start()
        newline = text.rfind("\n", previous, at)
        if newline >= 0:
            line_start = token_start = newline + 1
        separator = max(text.rfind(mark, max(previous, line_start), at) for mark in " \t[{,")
        if separator >= 0:
            token_start = separator + 1
        previous = at
        if text.startswith(("!", "&", "*"), token_start) or text.startswith("%", line_start):
            continue
        pieces.append(text[last:at])
        pieces.append(stand_in)
        last = at + 1
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


def _restore(root: Node, stand_ins: StandIns) -> None:
    """Put the stand-ins' characters back into every scalar of the tree."""
    colon, tab, empty = stand_ins.colon, stand_ins.tab, stand_ins.empty_value
    table = str.maketrans({colon: ":", tab: "\t", empty: ":"})
    stack: list[Node] = [root]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            value = node.value
            if value.endswith(empty):
                value = value[:-1]  # the key before an omitted value
            if colon in value or tab in value or empty in value:
                value = value.translate(table)
            node.value = value
            continue
        for item in node.value:
            if isinstance(item, tuple):
                stack.extend(item)
            else:
                stack.append(item)


def _has_directive(text: str) -> bool:
    return text.startswith(("%", "\ufeff%")) or "\n%" in text


def _prepare_directives(text: str) -> str:
    """The directive lines before the document: unknown ones commented out, `%YAML 1.x`
    written `1.1`; raises what PyYAML raises about them."""
    lines = text.split("\n")
    offset = 0
    rewritten = False
    seen_directive = False
    for number, line in enumerate(lines):
        body = line[1:] if number == 0 and line.startswith("\ufeff") else line
        start = offset + len(line) - len(body)
        stripped = body.strip(" \r")
        if body.startswith("%"):
            seen_directive = True
            replacement = _directive_line(body, number, start)
            if replacement is not None:
                lines[number] = line[: len(line) - len(body)] + replacement
                rewritten = True
        elif stripped and not stripped.startswith("#"):
            if rewritten and not _starts_document(body):
                raise DirectiveError(
                    None,
                    None,
                    "expected '<document start>' (`---`) after the directives",
                    StreamMark("<text>", start, number, 0),
                )
            break
        offset += len(line) + 1
    else:
        if rewritten:
            raise DirectiveError(
                None,
                None,
                "expected '<document start>' (`---`) after the directives, but the text ends",
                StreamMark("<text>", len(text), len(lines) - 1, len(lines[-1])),
            )
    if not seen_directive or not rewritten:
        return text
    return "\n".join(lines)


def _starts_document(line: str) -> bool:
    return line.startswith("---") and (len(line) == 3 or line[3] in " \t\r")


def _directive_line(line: str, number: int, start: int) -> str | None:
    """The replacement for one directive line (None: keep it); raises for a line PyYAML
    refuses. A `%TAG` line is left to the composer, which reads it as PyYAML does."""
    name = _DIRECTIVE_NAME.match(line, 1)
    end = name.end() if name else 1
    following = line[end : end + 1]
    if end == 1 or (following and following not in " \r"):
        _fail(
            "while scanning a directive",
            f"expected alphabetic or numeric character, but found {following or _LINE_BREAK!r}",
            number,
            start,
            end,
        )
    directive = line[1:end]
    if directive == "TAG":
        return None
    if directive != "YAML":
        return "#" + line[1:]  # PyYAML ignores the rest of the line
    version = _VERSION.match(line, end)
    if version is None:
        _fail("while scanning a directive", "expected a version `%YAML 1.1`", number, start, end)
    after = line[version.end() : version.end() + 1]
    tail = line[version.end() :]
    if after and after not in " \r":
        _fail(
            "while scanning a directive",
            f"expected a digit or ' ', but found {after!r}",
            number,
            start,
            version.end(),
        )
    if tail.strip(" \r") and not tail.lstrip(" ").startswith("#"):
        _fail(
            "while scanning a directive",
            "expected a comment or a line break",
            number,
            start,
            version.end() + len(tail) - len(tail.lstrip(" ")),
        )
    if version.group(1) != "1" or version.group(2) in ("1", "2"):
        return None  # 1.1 and 1.2 libyaml reads; another major version both refuse
    written = f"1.1{' ' * (len(version.group(0).lstrip(' ')) - 3)}"
    return line[: version.start(1)] + written + line[version.end() :]


def _fail(context: str, problem: str, number: int, start: int, column: int) -> NoReturn:
    raise DirectiveError(
        context,
        StreamMark("<text>", start, number, 0),
        problem,
        StreamMark("<text>", start + column, number, column),
    )
