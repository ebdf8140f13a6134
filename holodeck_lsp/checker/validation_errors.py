"""Pydantic validation errors -> positioned, coded, human diagnostics.

Each error's `loc` is followed through the YAML node tree (see yaml_document.locate) to the
exact key or value; the message says what is wrong and, where we can tell, how to fix it, and
the diagnostic's `where` names the test case, turn, expected tool and argument it is about
(checker/located.py composes the two).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from holodeck_lsp.checker.diagnostics import Diagnostic, Range, Severity
from holodeck_lsp.checker.located import format_path, where_of
from holodeck_lsp.checker.suggestions import closest, did_you_mean, suggestion_data
from holodeck_lsp.checker.yaml_document import first_key, locate, node_range
from holodeck_lsp.checker.yaml_locate import KeyIndex
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.base import AT_KEY, OFFSET_KEY
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.introspect import keys_at

Path = tuple[str | int, ...]

_TYPE_WORDS = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "none_required": "empty",
}
_RANGE_WORDS = {
    "greater_than": ("gt", ">"),
    "greater_than_equal": ("ge", ">="),
    "less_than": ("lt", "<"),
    "less_than_equal": ("le", "<="),
}
_LENGTH_TYPES = ("too_short", "too_long")
#: Codes whose natural place is the key, not the value (the key itself is what to remove).
_KEY_CODES = frozenset(
    {
        Code.UNKNOWN_KEY,
        Code.TURNS_MIXED_WITH_LEGACY,
        Code.TEST_CASES_AND_FILE,
        Code.EXCLUSIVE_FIELDS,
        Code.INSTRUCTIONS_SOURCE,
        Code.BAD_MATCHER_SHAPE,
        Code.ENDPOINT_REQUIRED,
    }
)
_AT_PART = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


def _parse_at(at: str) -> Path:
    return tuple(int(idx) if idx else name for idx, name in _AT_PART.findall(at))


def _describe(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"integer {value}"
    if isinstance(value, float):
        return f"number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"string {shown!r}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _quote_hint(value: Any, node: Node | None) -> str:
    """Unquoted YAML scalars that HoloDeck reads as numbers, booleans or dates."""
    if isinstance(value, bool | int | float) or type(value).__name__ in ("date", "datetime"):
        raw = node.value if isinstance(node, ScalarNode) else str(value)
        return f'; quote it: "{raw}"'
    return ""


def compact_range(located_node: Node, key: Node | None) -> Range:
    """A short range for a whole mapping or list: its key, or its first entry's line."""
    if key is not None:
        return node_range(key)
    if isinstance(located_node, MappingNode):
        first = first_key(located_node)
        if first is not None:
            value = located_node.value[0][1]
            end = value if value.end_mark.line == first.start_mark.line else first
            return Range(node_range(first).start, node_range(end).end)
    if isinstance(located_node, SequenceNode) and located_node.value:
        return compact_range(located_node.value[0], None)
    start = located_node.start_mark
    if start is None:  # an empty document has no marks
        return Range.of(0, 0, 0, 0)
    return Range.of(start.line, start.column, start.line, start.column + 1)


class ErrorMapper:
    """Turns the errors of one validation into diagnostics for one document. Paths are
    always agent paths (from the Agent root), so keys are looked up there."""

    def __init__(
        self,
        file: str,
        root_node: Node,
        data: Any,
        path_prefix: Path = (),
    ) -> None:
        """`root_node` is where validation paths start (the document root, or the list of an
        included test case file, whose paths get `path_prefix` = ('test_cases',)); `data` is
        the agent's data at the agent root, for naming cases and tools."""
        self.file = file
        self.root_node = root_node
        #: Every error is located in the same tree: each mapping's keys are read once.
        self.keys = KeyIndex()
        self.data = data
        self.prefix = path_prefix

    def map(self, error: ValidationError) -> list[Diagnostic]:
        diagnostics: dict[tuple[Range, str | None, Code], Diagnostic] = {}
        for detail in error.errors(include_url=False):
            diagnostic = self.one(detail)
            key = (diagnostic.range, diagnostic.field_path, diagnostic.code)
            previous = diagnostics.get(key)
            if previous is None:
                diagnostics[key] = diagnostic
            elif diagnostic.code is Code.WRONG_TYPE and diagnostic.message != previous.message:
                # A union field (e.g. a mapping or a string): one diagnostic, both options.
                merged = previous.data.get("expected", "") + " or " + diagnostic.data["expected"]
                diagnostics[key] = _with_expected(previous, merged)
        return list(diagnostics.values())

    def one(self, detail: ErrorDetails) -> Diagnostic:
        kind = detail["type"]
        context = detail.get("ctx") or {}
        loc: Path = tuple(detail["loc"])
        at = context.get(AT_KEY)
        if isinstance(at, str):
            loc = loc + _parse_at(at)
        located = locate(self.root_node, loc, self.keys)
        elements = tuple(e for e in loc if not (isinstance(e, str) and e.startswith("<")))
        full_path = self.prefix + elements[: len(elements) - len(located.rest)]
        code, message, extra = self.describe(kind, detail, located.node, full_path, located.rest)
        if code is Code.MISSING_FIELD and kind == "missing":
            missing = str(located.rest[0]) if located.rest else ""
            full_path = full_path + ((missing,) if missing else ())
        if located.rest or (
            isinstance(located.node, MappingNode | SequenceNode) and not (located.node.flow_style)
        ):
            where_range = compact_range(located.node, located.key)
        elif code in _KEY_CODES and located.key is not None:
            where_range = node_range(located.key)
        else:
            where_range = node_range(located.node)
            offset = context.get(OFFSET_KEY)
            if isinstance(offset, int) and isinstance(located.node, ScalarNode):
                where_range = _inside_scalar(located.node, offset) or where_range
        where, label = where_of(self.data, full_path)
        return Diagnostic(
            file=self.file,
            range=where_range,
            severity=Severity.ERROR,
            code=code,
            message=message,
            field_path=format_path(full_path) or None,
            test_case=label,
            data=extra,
            where=where,
        )

    def describe(
        self,
        kind: str,
        detail: ErrorDetails,
        node: Node,
        path: Path,
        rest: tuple[str | int, ...],
    ) -> tuple[Code, str, dict[str, str]]:
        context = detail.get("ctx") or {}
        value = detail.get("input")
        if kind.startswith("HD"):
            return Code(kind), detail["msg"], {}
        if kind == "missing":
            name = rest[0] if rest else path[-1] if path else "?"
            return Code.MISSING_FIELD, f"missing required field `{name}`", {"field": str(name)}
        if kind == "extra_forbidden":
            return self.unknown_key(path)
        if kind in _TYPE_WORDS:
            expected = _TYPE_WORDS[kind]
            text = f"must be {expected}, got {_describe(value)}"
            if kind == "string_type":
                text += _quote_hint(value, node)
            return Code.WRONG_TYPE, text, {"expected": expected}
        if kind in ("literal_error", "enum"):
            return self.bad_choice(value, str(context.get("expected", "")))
        if kind in _RANGE_WORDS:
            name, sign = _RANGE_WORDS[kind]
            shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
            return Code.OUT_OF_RANGE, f"must be {sign} {context.get(name)}, got {shown}", {}
        if kind in _LENGTH_TYPES:
            return Code.TOO_MANY_ITEMS, detail["msg"].lower(), {}
        if kind == "string_pattern_mismatch":
            pattern = context.get("pattern", "")
            if pattern == "^[0-9A-Za-z_]+$":
                return (
                    Code.PATTERN_MISMATCH,
                    f"{value!r} may only contain letters, digits and underscores",
                    {},
                )
            return Code.PATTERN_MISMATCH, f"{value!r} must match the pattern {pattern}", {}
        if kind == "union_tag_invalid" or kind == "union_tag_not_found":
            return Code.INVALID_CHOICE, detail["msg"], {}
        if kind == "value_error":
            return Code.INVALID_VALUE, detail["msg"].removeprefix("Value error, "), {}
        return Code.INVALID_VALUE, detail["msg"], {}

    def unknown_key(self, path: Path) -> tuple[Code, str, dict[str, str]]:
        name = str(path[-1]) if path else "?"
        valid = keys_at(Agent, path[:-1])
        suggestion = closest(name, valid)
        if suggestion:
            return (
                Code.UNKNOWN_KEY,
                f"unknown key `{name}`{did_you_mean(suggestion)}",
                suggestion_data(suggestion),
            )
        listed = ", ".join(valid[:16]) + (", …" if len(valid) > 16 else "")
        return Code.UNKNOWN_KEY, f"unknown key `{name}`; valid keys here: {listed}", {}

    def bad_choice(self, value: Any, expected: str) -> tuple[Code, str, dict[str, str]]:
        options = re.findall(r"'([^']*)'", expected)
        message = f"{_describe(value)} is not one of {expected}"
        suggestion = closest(value, options) if isinstance(value, str) else None
        return (
            Code.INVALID_CHOICE,
            message + did_you_mean(repr(suggestion) if suggestion else None, quote=""),
            suggestion_data(suggestion),
        )


def _inside_scalar(node: ScalarNode, offset: int) -> Range | None:
    """The one-character range at `offset` of a scalar's value, when the source spells the
    value verbatim on one line (plain, or quoted without escapes); else None."""
    start, end = node.start_mark, node.end_mark
    if start.line != end.line:
        return None
    quote = 1 if node.style in ("'", '"') else 0
    spelled_length = end.column - start.column - 2 * quote
    if spelled_length != len(node.value) or (node.style == '"' and "\\" in node.value):
        return None
    column = start.column + quote + min(offset, max(len(node.value) - 1, 0))
    return Range.of(start.line, column, start.line, column + 1)


def _with_expected(diagnostic: Diagnostic, expected: str) -> Diagnostic:
    value = diagnostic.message.rsplit(", got ", 1)[-1]
    return Diagnostic(
        file=diagnostic.file,
        range=diagnostic.range,
        severity=diagnostic.severity,
        code=diagnostic.code,
        message=f"must be {expected}, got {value}",
        field_path=diagnostic.field_path,
        test_case=diagnostic.test_case,
        data={"expected": expected},
        where=diagnostic.where,
    )
