"""Tool-argument matchers: how an asserted argument value is compared with the real one.

In YAML a matcher is chosen by shape (docs/grading.md#how-a-matcher-is-written):
`{fuzzy: "206588"}`, `{regex: "^2009.*$"}`, or anything else — a scalar, list or other
mapping — as a literal.
The parsed form is one of three frozen dataclasses; the engine gives them their semantics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import PlainSerializer, PlainValidator, WithJsonSchema

from holodeck_lsp.schema.base import fault
from holodeck_lsp.schema.codes import Code

MATCHER_KEYS = ("fuzzy", "regex")


@dataclass(frozen=True, slots=True)
class LiteralMatcher:
    """Exact equality; int and float compare numerically, bools strictly, strings verbatim."""

    value: Any


@dataclass(frozen=True, slots=True)
class FuzzyMatcher:
    """Case-, whitespace- and thousands-separator-tolerant, numeric-aware comparison."""

    pattern: str


@dataclass(frozen=True, slots=True)
class RegexMatcher:
    """Python regex, full match against `str(actual)`; compiled once at load time."""

    compiled: re.Pattern[str]

    @property
    def pattern(self) -> str:
        return self.compiled.pattern


ArgMatcherValue = LiteralMatcher | FuzzyMatcher | RegexMatcher


def _describe(value: object) -> str:
    return f"{type(value).__name__} {value!r}"


def parse_arg_matcher(raw: Any) -> ArgMatcherValue:
    """Turn one `args:` value into its matcher, raising a coded fault for invalid shapes."""
    if isinstance(raw, LiteralMatcher | FuzzyMatcher | RegexMatcher):
        return raw
    if not isinstance(raw, dict):
        return LiteralMatcher(raw)
    kinds = [key for key in MATCHER_KEYS if key in raw]
    if not kinds:
        return LiteralMatcher(raw)
    if len(kinds) == 2:
        raise fault(
            Code.BAD_MATCHER_SHAPE,
            "a matcher has exactly one of `fuzzy` or `regex`, not both; keep one",
            at="regex",
        )
    kind = kinds[0]
    extra = [key for key in raw if key != kind]
    if extra:
        raise fault(
            Code.BAD_MATCHER_SHAPE,
            f"a `{kind}` matcher takes no other keys; remove `{extra[0]}` (to compare a "
            "whole mapping literally, drop the matcher key)",
            at=str(extra[0]),
        )
    pattern = raw[kind]
    if not isinstance(pattern, str):
        raise fault(
            Code.WRONG_TYPE,
            f"the `{kind}` pattern must be a string, got {_describe(pattern)}; quote it, "
            f'e.g. {kind}: "{pattern}"',
            at=kind,
        )
    if kind == "fuzzy":
        return FuzzyMatcher(pattern)
    try:
        return RegexMatcher(re.compile(pattern))
    except re.error as error:
        where = f" at position {error.pos}" if error.pos is not None else ""
        raise fault(
            Code.BAD_REGEX,
            f"regex does not compile: {error.msg}{where}; fix the pattern, or escape "
            "special characters (e.g. \\( \\. \\$) if you meant them literally",
            at="regex",
            offset=error.pos,
        ) from None


def dump_arg_matcher(matcher: ArgMatcherValue) -> Any:
    """The YAML/JSON shape a matcher was written in."""
    if isinstance(matcher, FuzzyMatcher):
        return {"fuzzy": matcher.pattern}
    if isinstance(matcher, RegexMatcher):
        return {"regex": matcher.pattern}
    return matcher.value


_MATCHER_JSON_SCHEMA: dict[str, Any] = {
    "description": "Expected argument value: a literal (exact, int/float equivalent), "
    "`{fuzzy: str}` or `{regex: str}`.",
    "anyOf": [
        {
            "type": "object",
            "properties": {"fuzzy": {"type": "string"}},
            "required": ["fuzzy"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"regex": {"type": "string"}},
            "required": ["regex"],
            "additionalProperties": False,
        },
        {"not": {"type": "object", "anyOf": [{"required": ["fuzzy"]}, {"required": ["regex"]}]}},
    ],
}

#: Field type for one asserted argument.
ArgMatcher = Annotated[
    ArgMatcherValue,
    PlainValidator(parse_arg_matcher),
    PlainSerializer(dump_arg_matcher),
    WithJsonSchema(_MATCHER_JSON_SCHEMA),
]
