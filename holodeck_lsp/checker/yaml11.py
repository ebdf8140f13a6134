"""YAML 1.1 scalar resolution, as HoloDeck's PyYAML `safe_load` performs it.

HoloDeck parses agent.yaml with PyYAML (YAML 1.1), where `yes`/`on` are booleans, `010` is
octal, `1:30` is 90 and `1e3` is a *string* (1.1 floats need a dot). ruamel.yaml composes
with YAML 1.2 rules, so we resolve plain scalars ourselves; otherwise we would accept
`ground_truth: 1e3` where HoloDeck rejects it, or the other way round.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import re
import sys
from typing import Any

_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})
_FALSE = frozenset({"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})
_INT = re.compile(
    r"""^(?:[-+]?0b[0-1_]+
    |[-+]?0[0-7_]+
    |[-+]?(?:0|[1-9][0-9_]*)
    |[-+]?0x[0-9a-fA-F_]+
    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""",
    re.X,
)
_FLOAT = re.compile(
    r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
    |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.X,
)
_TIMESTAMP = re.compile(
    r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
    |[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?
     (?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?
     (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""",
    re.X,
)
_TIMESTAMP_PARTS = re.compile(
    r"""^(?P<year>[0-9]{4})-(?P<month>[0-9]{1,2})-(?P<day>[0-9]{1,2})
    (?:(?:[Tt]|[ \t]+)(?P<hour>[0-9]{1,2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})
    (?:\.(?P<fraction>[0-9]*))?
    (?:[ \t]*(?P<tz>Z|(?P<tz_sign>[-+])(?P<tz_hour>[0-9]{1,2})
    (?::(?P<tz_minute>[0-9]{2}))?))?)?$""",
    re.X,
)
# Characters that can start a non-string plain scalar: a cheap filter before the regexes.
_MAYBE_TYPED = frozenset("0123456789+-.~nNtTfFyYoO")


def _to_int(text: str) -> int:
    text = text.replace("_", "")
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-")
    if digits == "0":
        return 0
    if digits.startswith("0b"):
        return sign * int(digits[2:], 2)
    if digits.startswith("0x"):
        return sign * int(digits[2:], 16)
    if digits.startswith("0"):
        return sign * int(digits, 8)
    if ":" in digits:
        value = 0
        for part in digits.split(":"):
            value = value * 60 + int(part)
        return sign * value
    limit = sys.get_int_max_str_digits()
    if limit and len(digits) > limit:
        # PyYAML (HoloDeck's loader) stops here too, with Python's own wording.
        raise ValueError(
            f"this integer has {len(digits):,} digits, more than the {limit:,} HoloDeck's YAML "
            "loader reads: quote it if it is text, or shorten it"
        )
    return sign * int(digits)


def _to_float(text: str) -> float:
    text = text.replace("_", "").lower()
    sign = -1.0 if text.startswith("-") else 1.0
    body = text.lstrip("+-")
    if body == ".inf":
        return sign * float("inf")
    if body == ".nan":
        return float("nan")
    if ":" in body:
        value = 0.0
        for part in body.split(":"):
            value = value * 60 + float(part)
        return sign * value
    return sign * float(body)


def _to_timestamp(text: str) -> dt.date | dt.datetime:
    match = _TIMESTAMP_PARTS.match(text)
    if match is None:  # pragma: no cover - guarded by _TIMESTAMP
        raise ValueError(f"not a timestamp: {text!r}")
    parts = match.groupdict()
    year, month, day = int(parts["year"]), int(parts["month"]), int(parts["day"])
    if parts["hour"] is None:
        return dt.date(year, month, day)
    fraction = (parts["fraction"] or "")[:6].ljust(6, "0")
    tzinfo = None
    if parts["tz"] == "Z":
        tzinfo = dt.UTC
    elif parts["tz_sign"]:
        delta = dt.timedelta(hours=int(parts["tz_hour"]), minutes=int(parts["tz_minute"] or 0))
        tzinfo = dt.timezone(-delta if parts["tz_sign"] == "-" else delta)
    return dt.datetime(
        year,
        month,
        day,
        int(parts["hour"]),
        int(parts["minute"]),
        int(parts["second"]),
        int(fraction),
        tzinfo=tzinfo,
    )


def resolve_plain(text: str) -> Any:
    """The Python value PyYAML's safe loader gives an untagged plain scalar.

    Raises ValueError for a timestamp-shaped scalar that is not a real date (PyYAML fails on
    those too).
    """
    if text in _NULL:
        return None
    if text[0] not in _MAYBE_TYPED:
        return text
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if _INT.match(text):
        return _to_int(text)
    if _FLOAT.match(text):
        return _to_float(text)
    if _TIMESTAMP.match(text):
        return _to_timestamp(text)
    return text


def resolve_tagged(tag: str, text: str) -> Any:
    """Value of a scalar with an explicit standard tag (`!!str 123`, `!!int "7"`)."""
    kind = tag.rsplit(":", 1)[-1]
    if kind == "str":
        return text
    if kind == "null":
        return None
    if kind == "bool":
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise ValueError(f"!!bool needs a YAML 1.1 boolean, got {text!r}")
    if kind == "int":
        return _to_int(text)
    if kind == "float":
        return _to_float(text)
    if kind == "timestamp":
        return _to_timestamp(text)
    if kind == "binary":
        # PyYAML decodes base64 to bytes (line breaks and spaces inside are ignored).
        try:
            return base64.decodebytes(text.encode("ascii"))
        except (binascii.Error, UnicodeEncodeError) as error:
            raise ValueError(f"!!binary needs base64 text: {error}") from None
    raise ValueError(f"unsupported tag {tag!r}")
