"""What HoloDeck's PyYAML `safe_load` refuses although the C composer (libyaml) reads it
(docs/checks.md, "Reading YAML like HoloDeck does").

- **Tabs.** PyYAML's scanner skips only spaces between tokens and ends a plain scalar at a
  tab, so a tab is an error everywhere except inside a quoted scalar, in a block scalar's
  content and in a comment: after a value (`name: x<tab>`), before a comment, between flow
  items, on a blank line, after `---` or `key:`. libyaml accepts all of these.
- **A block scalar's header** (`|`, `>`): after the indicators (`1`-`9`, `+`, `-`) PyYAML wants
  a space, a comment after a space, or the end of the line; `>#comment` and `|<tab>` are
  errors.

Both are found on the composed tree and the text, with the place PyYAML names.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from ruamel.yaml.nodes import Node, ScalarNode

from holodeck_lsp.checker.diagnostics import Severity
from holodeck_lsp.checker.text_positions import YamlLines
from holodeck_lsp.checker.yaml_compose import Problem, point_range
from holodeck_lsp.schema.codes import Code

#: A block scalar's header after its indicator: indentation and chomping indicators, then
#: nothing, spaces, or spaces and a comment.
_HEADER = re.compile(r"(?:[1-9][+-]?|[+-][1-9]?)?(?: +(?:#[^\n]*)?)?(?:\r?\n|$)")
_INDICATORS = re.compile(r"[1-9+-]*")
_SPACES = re.compile(" *")
_ANCHOR_NAME = re.compile(r"[0-9A-Za-z_-]*")
#: Tags and anchors before a block scalar's indicator: `!!str |`, `&a |`.
_PROPERTIES = re.compile(r"(?:(?:&[0-9A-Za-z_-]+|![^\s]*)[ \r\n]+)*")
_TAB_MESSAGE = (
    "YAML syntax error: a tab here stops HoloDeck's YAML reader (PyYAML allows tabs only "
    "inside quoted strings, block scalars and comments); replace it with spaces. The parser "
    "says: found character '\\t' that cannot start any token"
)
#: Enough to show a file full of tabs; the first is where HoloDeck stops.
_MAX_TAB_PROBLEMS = 50


def block_header_problem(text: str, node: ScalarNode) -> Problem | None:
    """The error PyYAML raises on the header of block scalar `node`, if any."""
    start = node.start_mark.index
    properties = _PROPERTIES.match(text, start)
    at = properties.end() if properties else start
    if text[at : at + 1] not in ("|", ">") or _HEADER.match(text, at + 1):
        return None
    indicators = _INDICATORS.match(text, at + 1)
    bad = indicators.end() if indicators else at + 1
    if text.startswith(" ", bad):
        # Spaces end the indicators; what follows them must be a comment or the line's end.
        bad = _SPACES.match(text, bad).end()  # type: ignore[union-attr]
        detail = f"expected a comment or a line break, but found {text[bad : bad + 1]!r}"
    else:
        detail = f"expected chomping or indentation indicators, but found {text[bad : bad + 1]!r}"
    # On the node's line unless tags or comments put the indicator lower (no YamlLines for
    # the whole text per scalar).
    newline = text.rfind("\n", start, bad)
    line = node.start_mark.line + text.count("\n", start, bad)
    column = node.start_mark.column + bad - start if newline < 0 else bad - newline - 1
    return Problem(
        Code.YAML_SYNTAX,
        Severity.ERROR,
        "YAML syntax error: after `|` or `>` HoloDeck's YAML reader (PyYAML) wants a space "
        "before a comment, or the end of the line; put a space before `#` or move the text "
        f"to the next line. The parser says: {detail}",
        point_range(line, column),
    )


def tab_problems(text: str, root: Node | None) -> list[Problem]:
    """An error at each tab (the first of its line) PyYAML's scanner refuses."""
    if "\t" not in text:
        return []
    spans = _scalar_spans(text, root)
    scan = _TabScan(text, spans, [span[0] for span in spans])
    # Directives come before the document's first node (in the document, a `%` is text).
    scan.directives_end = len(text) if root is None else root.start_mark.index
    lines = YamlLines(text)
    problems: list[Problem] = []
    at = text.find("\t")
    while at >= 0:
        resume = scan.resume_after(at)
        if resume is None:
            where = lines.position(at)
            problems.append(
                Problem(
                    Code.YAML_SYNTAX,
                    Severity.ERROR,
                    _TAB_MESSAGE,
                    point_range(where.line, where.character),
                )
            )
            if len(problems) >= _MAX_TAB_PROBLEMS:
                break
            resume = scan.line_end  # one error per line
        at = text.find("\t", resume)
    return problems


#: A scalar's (start, end, style) in the text.
_Span = tuple[int, int, str]


def _scalar_spans(text: str, root: Node | None) -> list[_Span]:
    """Each scalar's span in the text, from its own first character (after a tag or anchor)."""
    spans: list[_Span] = []
    stack: list[Node] = [root] if root is not None else []
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            start, end = node.start_mark.index, node.end_mark.index
            if text.startswith(("!", "&"), start):
                start = _after_properties(text, start, end)
            spans.append((start, end, node.style or ""))
            continue
        for item in node.value:
            stack.extend(item if isinstance(item, tuple) else (item,))
    spans.sort()
    return spans


def _after_properties(text: str, start: int, end: int) -> int:
    """Where a scalar's own text starts after its tag and anchor and any spaces, line breaks
    and comments between them (tabs there are between tokens)."""
    at = start
    while at < end:
        character = text[at]
        if character == "&":  # an anchor's name: letters, digits, `-` and `_`
            at = _ANCHOR_NAME.match(text, at + 1).end()  # type: ignore[union-attr]
        elif character == "!":
            while at < end and text[at] not in " \t\r\n":
                at += 1
        elif character in " \t\r\n":
            at += 1
        elif character == "#":
            newline = text.find("\n", at, end)
            at = end if newline < 0 else newline
        else:
            break
    return at


class _TabScan:
    """Walks the tabs of a text in order; each answer says where the next tab that matters
    can be (past a quoted string, a comment, a reported line), so a long line of tabs costs
    one step, not one per tab."""

    def __init__(self, text: str, spans: list[_Span], starts: list[int]) -> None:
        self.text, self.spans, self.starts = text, spans, starts
        self.directives_end = 0
        self.line_start = self.line_end = self.previous = 0
        self.comment = len(text)

    def resume_after(self, at: int) -> int | None:
        """Where to look for the next tab when PyYAML reads the tab at `at`; None if it
        refuses it."""
        text = self.text
        if at >= self.line_end:  # a new line: its bounds and comment, found once
            newline = text.rfind("\n", self.previous, at)
            self.line_start = newline + 1 if newline >= 0 else self.line_start
            end = text.find("\n", at)
            self.line_end = len(text) if end < 0 else end
            self.comment = -1
        self.previous = at
        if (
            self.line_start < self.directives_end
            and text.startswith("%", self.line_start)
            and not text.startswith(("%YAML", "%TAG"), self.line_start)
        ):
            return self.line_end  # PyYAML skips the rest of an unknown directive's line
        inside = _span_at(at, self.spans, self.starts)
        if inside is not None:
            # Quoted scalars and a block scalar's content may hold tabs (one on a block
            # scalar's header line is reported by `block_header_problem`); PyYAML ends a
            # plain scalar at a tab.
            return inside[1] if inside[2] in ('"', "'", "|", ">") else None
        if self.comment < 0:
            self.comment = _comment_start(text, self.line_start, self.spans, self.starts)
        return self.line_end if self.comment < at else None


def _comment_start(text: str, line_start: int, spans: list[_Span], starts: list[int]) -> int:
    """Where the comment of the line starting at `line_start` begins (the text's length if
    it has none): outside scalars a `#` starts one wherever PyYAML looks for a token."""
    line_end = text.find("\n", line_start)
    line_end = len(text) if line_end < 0 else line_end
    hash_at = text.find("#", line_start, line_end)
    while hash_at >= 0:
        if _span_at(hash_at, spans, starts) is None:
            return hash_at
        hash_at = text.find("#", hash_at + 1, line_end)
    return len(text)


def _span_at(at: int, spans: list[_Span], starts: list[int]) -> _Span | None:
    index = bisect_right(starts, at) - 1
    if index >= 0 and spans[index][0] <= at < spans[index][1]:
        return spans[index]
    return None
