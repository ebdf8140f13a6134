"""YAML syntax errors a person understands: what is wrong, where, and how to fix it.

The parser's own words ("while scanning a quoted scalar found unexpected end of stream") are
kept as a second sentence, but the first one names the fault in the author's terms and points
where it starts, which is often not where the parser gave up:

- an unclosed quote is reported at the **opening** quote (the parser only notices at the end
  of the file, or many lines later);
- a tab in indentation is reported at the tab;
- a wrong indent names the block it broke (`model`'s keys are indented 4 …).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.reader import ReaderError

from holodeck_lsp.checker.diagnostics import Severity
from holodeck_lsp.checker.text_positions import YamlLines
from holodeck_lsp.checker.yaml_compose import Problem, point_range
from holodeck_lsp.schema.codes import Code

_PREFIX = "YAML syntax error: "
#: A line that reads as a mapping key: inside a "string", it shows the string ran on too far.
_KEY_LINE = re.compile(r"^\s*(?:- )?[A-Za-z_][\w-]*:(?: |$)")


def syntax_problem(text: str, error: BaseException) -> Problem | None:
    """The problem for what `compose` raised, or None for an exception that is not about the
    text (a bug: the caller re-raises it)."""
    if isinstance(error, MarkedYAMLError):
        return _marked(text, error)
    if isinstance(error, ReaderError):
        # A character YAML does not allow (a control character, say): point at it.
        where = YamlLines(text).position(error.position)
        return _problem(
            f"character {error.character!r} is not allowed in YAML; remove it",
            where.line,
            where.character,
        )
    if isinstance(error, RecursionError):
        return Problem(
            Code.TOO_DEEP, Severity.ERROR, "nesting is too deep to read", point_range(0, 0)
        )
    if isinstance(error, (YAMLError, ValueError)):
        return Problem(Code.YAML_SYNTAX, Severity.ERROR, str(error), point_range(0, 0))
    return None


def _marked(text: str, error: MarkedYAMLError) -> Problem:
    detail = " ".join(part for part in (error.context, error.problem) if part) or "invalid YAML"
    lines = text.splitlines()
    problem_mark = error.problem_mark or error.context_mark
    line = problem_mark.line if problem_mark is not None else 0
    column = problem_mark.column if problem_mark is not None else 0

    tab = _tab_in_indentation(lines, line) if "\t" in text else None
    if tab is not None:
        return _problem("tab characters can't indent YAML; use spaces", tab[0], tab[1], detail)
    context_mark = error.context_mark
    if (
        error.context is not None
        and "quoted scalar" in error.context
        and context_mark is not None
        and error.problem is not None
        and "end of stream" in error.problem
    ):
        quote = text[context_mark.index] if context_mark.index < len(text) else '"'
        return _problem(
            f"this string is never closed: add the closing {quote} (the {quote} here opens a "
            "string that runs to the end of the file)",
            context_mark.line,
            context_mark.column,
            detail,
        )
    opened = _unclosed_quote_before(lines, line)
    if opened is not None:
        quote_line, quote_column, quote = opened
        return _problem(
            f"this string is never closed on its line: the {quote} here opens a string that "
            f"runs on to the next {quote} (line {line + 1}), and YAML fails after it; add the "
            f"closing {quote} on this line",
            quote_line,
            quote_column,
            f"{detail} (line {line + 1}, column {column + 1})",
        )
    indent = _indentation_fault(lines, line)
    if indent is not None:
        message, where = indent
        return _problem(message, line, where, detail)
    # The parser's words only. "Unexpected end of stream" points past the last line: show
    # it on the last text.
    index = problem_mark.index if problem_mark is not None else 0
    index = min(index, max(len(text.rstrip()) - 1, 0))
    where_ = YamlLines(text).position(index)
    return _problem(detail, where_.line, where_.character)


def _problem(message: str, line: int, column: int, detail: str | None = None) -> Problem:
    text = _PREFIX + message
    if detail is not None:
        text += f". The parser says: {detail}"
    return Problem(Code.YAML_SYNTAX, Severity.ERROR, text, point_range(line, column))


def _tab_in_indentation(lines: list[str], line: int) -> tuple[int, int] | None:
    """The tab in the leading whitespace of `line` (or of the line before it: the parser may
    stop at the next token), as (line, column)."""
    for number in (line, line - 1):
        if 0 <= number < len(lines):
            text = lines[number]
            lead = text[: len(text) - len(text.lstrip(" \t"))]
            if "\t" in lead:
                return number, lead.index("\t")
    return None


def _unclosed_quote_before(lines: list[str], line: int) -> tuple[int, int, str] | None:
    """A `key: "…` value on a line before `line` whose quote is not closed on its line.

    Multi-line quoted strings are legal YAML but rare in agent files; followed by a parser
    error they almost always mean a forgotten closing quote, which then pairs with the next
    quote in the file and moves the error lines away from the real fault."""
    for number in range(min(line, len(lines)) - 1, -1, -1):
        text = lines[number]
        for marker in (': "', ": '", '- "', "- '"):
            start = text.find(marker)
            if start < 0:
                continue
            quote = marker[-1]
            rest = text[start + len(marker) :]
            if quote == '"':
                rest = rest.replace("\\\\", "").replace('\\"', "")
            else:
                rest = rest.replace("''", "")
            swallowed = lines[number + 1 : line]
            if quote not in rest and any(_KEY_LINE.match(later) for later in swallowed):
                return number, start + len(marker) - 1, quote
            return None  # only the nearest quoted value can be the culprit
    return None


@dataclass(frozen=True, slots=True)
class _Line:
    number: int
    #: Column of the first key or value (after any `- ` item markers).
    key_column: int
    #: Column of the first character (a `-` for an item line).
    indent: int
    key: str | None
    #: Whether a value follows the key on the same line (`key: value`), not a block.
    inline_value: bool


def _parse_line(number: int, text: str) -> _Line | None:
    stripped = text.lstrip(" ")
    if not stripped or stripped.startswith("#"):
        return None
    indent = len(text) - len(stripped)
    column = indent
    while stripped.startswith("- ") or stripped == "-":
        stripped = stripped[2:].lstrip(" ")
        column = len(text) - len(stripped)
    key: str | None = None
    inline = False
    head, colon, rest = stripped.partition(": ")
    if colon and not head.startswith(("'", '"', "{", "[")):
        key, inline = head.strip(), bool(rest.split("#", 1)[0].strip())
    elif stripped.endswith(":"):
        key = stripped[:-1].strip()
    if key is not None and rest.strip().startswith(("|", ">")):
        inline = False
    return _Line(number, column, indent, key, inline)


def _indentation_fault(lines: list[str], line: int) -> tuple[str, int] | None:
    """A message naming the block a mis-indented `line` broke, and the column to point at;
    None when the line's indentation is not the fault."""
    if not 0 <= line < len(lines):
        return None
    this = _parse_line(line, lines[line])
    if this is None or this.key is None:
        return None
    above = [
        parsed
        for number in range(line - 1, -1, -1)
        if (parsed := _parse_line(number, lines[number])) is not None
    ]
    if not above:
        return None
    previous = above[0]
    human = line + 1
    name = f"`{this.key}:`"
    if this.indent > previous.key_column and previous.inline_value and previous.key:
        # `  provider: openai` then `   name: x`: the deeper line continues openai.
        owner = _owner(above[1:], previous.key_column)
        where = f"`{owner.key}`'s block" if owner and owner.key else "the same block"
        return (
            f"line {human} is indented {this.indent} spaces, more than `{previous.key}` on "
            f"line {previous.number + 1}, so YAML reads it as more of {previous.key}'s value, "
            f"where {name} is not allowed; indent it {previous.key_column} spaces like "
            f"`{previous.key}` to keep it in {where}",
            this.indent,
        )
    if this.indent < previous.key_column:
        owner = _owner(above, this.indent + 1)
        if owner is None or owner.key_column == this.indent or owner.indent == this.indent:
            return None  # it lines up with an enclosing block: not an indentation fault
        block = _block_column(above, owner)
        if block is None or block == this.indent:
            return None
        if owner.key and owner.key_column < this.indent and not owner.inline_value:
            keys = f"the keys of `{owner.key}` (line {owner.number + 1})"
            other = f", or {owner.key_column} to end `{owner.key}`'s block"
        else:
            keys, other = f"the keys of the item on line {owner.number + 1}", ""
        return (
            f"line {human} is indented {this.indent} spaces, which lines up with no block: "
            f"{keys} are indented {block}; indent it {block} spaces to keep it there{other}",
            this.indent,
        )
    return None


def _owner(above: list[_Line], column: int) -> _Line | None:
    """The nearest line above whose key (or item marker) starts left of `column`."""
    for parsed in above:
        if parsed.key_column < column or parsed.indent < column:
            return parsed
    return None


def _block_column(above: list[_Line], owner: _Line) -> int | None:
    """The column of the keys of `owner`'s block: of the lines between it and the fault."""
    inside = [parsed for parsed in above if parsed.number > owner.number]
    if not inside:
        return owner.key_column if owner.indent != owner.key_column else None
    return inside[-1].key_column
