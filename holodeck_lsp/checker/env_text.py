"""`${VAR}` values that change the YAML around them.

HoloDeck substitutes `${VAR}` into the file's *text* and parses the result, so a value with
YAML syntax in it (`[unclosed`, `a: b`, `x # y`) changes what the file says — or breaks it.
We substitute into parsed values (to keep every position exact), so this module replays
HoloDeck's order on the side: substitute into the text, parse that, and compare.

* The substituted text does not parse: an error (HD012) at the `${VAR}` nearest the break,
  with the parser's message — HoloDeck refuses the file.
* It parses to something else: a warning (HD012) at each reference whose value holds YAML
  syntax — HoloDeck reads a different value than the editor shows.

Values are never printed (they are often secrets): a message names only the YAML characters
the value contains.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from holodeck_lsp.checker.diagnostics import Range, Severity
from holodeck_lsp.checker.text_positions import YamlLines
from holodeck_lsp.checker.yaml_document import ENV_REFERENCE, Problem, YamlDocument, parse_yaml
from holodeck_lsp.schema.codes import Code

#: Characters that can make a substituted value mean more than text (YAML 1.1 indicators).
_SYNTAX = (
    "\n",
    ": ",
    " #",
    "[",
    "]",
    "{",
    "}",
    ",",
    "&",
    "*",
    "!",
    "|",
    ">",
    "'",
    '"',
    "%",
    "@",
    "`",
)


@dataclass(frozen=True, slots=True)
class _Reference:
    name: str
    value: str
    original: tuple[int, int]
    substituted: tuple[int, int]


def substitution_problems(
    text: str, document: YamlDocument, env: Mapping[str, str] | None
) -> list[Problem]:
    """Problems of `text` that only HoloDeck's text-first substitution shows (module doc)."""
    if "${" not in text or document.root is None:
        return []
    environment = os.environ if env is None else env
    references, substituted = _substitute(text, environment)
    if not any(_syntax_in(ref.value) for ref in references):
        return []  # plain values read the same either way
    other = parse_yaml(substituted, {})
    lines = YamlLines(text)
    if other.root is None:
        broken = next((p for p in other.problems if p.code is Code.YAML_SYNTAX), None)
        if broken is None:
            return []
        offset = YamlLines(substituted).index(broken.range.start)
        ref = _nearest(references, offset)
        return [_problem(lines, ref, Severity.ERROR, _broken_message(ref, broken.message))]
    if other.value == document.value:
        return []
    return [
        _problem(lines, ref, Severity.WARNING, _changed_message(ref))
        for ref in references
        if _syntax_in(ref.value)
    ]


def _substitute(text: str, env: Mapping[str, str]) -> tuple[list[_Reference], str]:
    references: list[_Reference] = []
    parts: list[str] = []
    done = 0
    length = 0
    for match in ENV_REFERENCE.finditer(text):
        value = env.get(match.group(1))
        if value is None:
            continue  # unset: HD010 already; HoloDeck would refuse the file anyway
        before = text[done : match.start()]
        parts += [before, value]
        start = length + len(before)
        length = start + len(value)
        references.append(_Reference(match.group(1), value, match.span(), (start, length)))
        done = match.end()
    parts.append(text[done:])
    return references, "".join(parts)


def _syntax_in(value: str) -> list[str]:
    found = [mark for mark in _SYNTAX if mark in value]
    if value[:1] in ("-", "?", ":") or value.endswith(":"):
        found.append(value[:1] if value[:1] in ("-", "?") else ":")
    return found


def _nearest(references: list[_Reference], offset: int) -> _Reference:
    """The reference whose value holds `offset`, else the last one before it (the parser
    reports a break at or after its cause), else the first."""
    before = [ref for ref in references if ref.substituted[0] <= offset]
    for ref in reversed(before):
        if offset <= ref.substituted[1]:
            return ref
    with_syntax = [ref for ref in before if _syntax_in(ref.value)]
    if with_syntax:
        return with_syntax[-1]
    return before[-1] if before else references[0]


def _shown_syntax(ref: _Reference) -> str:
    marks = ", ".join(
        f"`{mark}`" if mark != "\n" else "a line break" for mark in _syntax_in(ref.value)
    )
    return f"its value contains {marks}" if marks else "its value holds YAML syntax"


def _broken_message(ref: _Reference, parser_message: str) -> str:
    return (
        f"HoloDeck substitutes ${{{ref.name}}} into the text before parsing, and the value "
        f"breaks the YAML ({_shown_syntax(ref)}; then: {parser_message}), so HoloDeck "
        f'refuses the file: put the reference in quotes ("${{{ref.name}}}"), or change the '
        "value"
    )


def _changed_message(ref: _Reference) -> str:
    return (
        f"HoloDeck substitutes ${{{ref.name}}} into the text before parsing, and the value "
        f"changes the YAML ({_shown_syntax(ref)}): HoloDeck reads something else here than "
        f'a plain value; put the reference in quotes ("${{{ref.name}}}") if you mean text'
    )


def _problem(lines: YamlLines, ref: _Reference, severity: Severity, message: str) -> Problem:
    start, end = ref.original
    return Problem(
        Code.ENV_VALUE_CHANGES_YAML,
        severity,
        message,
        Range(lines.position(start), lines.position(end)),
    )
