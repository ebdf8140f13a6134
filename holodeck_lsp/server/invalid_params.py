"""Requests whose params do not have the method's shape get the JSON-RPC "invalid params" error
response (code -32602) naming what is wrong — `position.line: must be in the range 0 to
2147483647`, `params: required` — as docs/editors/README.md ("Limits and errors") describes.

pygls turns a message into typed params while reading it (`structure_message`, the JSON
decoder's object hook); when that fails it raises out of its reading loop, so the request is
never answered and the client only sees a `window/showMessage` pop-up. `HolodeckProtocol`
(core.py) catches the failure here instead: the request becomes a `RejectedRequest` that is
answered with the error. Notifications have no answer; their failures stay pygls's.

The message never repeats a value the client sent (a value may be anything, a secret too):
only the field's path and what it must be.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

import cattrs
from lsprotocol.types import ResponseError

INVALID_PARAMS: Final = -32602
_SNAKE = re.compile(r"_([a-z])")
#: lsprotocol's range check of an integer field: `Position.line should be in range [0:…]`.
_LSP_INTEGER_RANGE = re.compile(r"\.(\w+) should be in range \[(-?\d+):(\d+)\]")
#: JSON's names for the Python types a field must have.
_JSON_TYPES: Final = {"int": "integer", "str": "string", "bool": "boolean", "float": "number"}


@dataclass(frozen=True, slots=True)
class RejectedRequest:
    """A request read from the client whose params could not be read as its method's."""

    id: int | str
    method: str
    problems: tuple[str, ...]
    jsonrpc: str = "2.0"

    def error(self) -> ResponseError:
        listed = "; ".join(self.problems) or "they do not have the method's shape"
        return ResponseError(
            code=INVALID_PARAMS, message=f"invalid params for {self.method}: {listed}"
        )


def rejected_request(data: dict[str, Any], failure: BaseException) -> RejectedRequest | None:
    """The request `data` could not be read (`failure`, raised by pygls's reader): a
    RejectedRequest to answer, or None when `data` is not a request (no answer is owed)."""
    request_id, method = data.get("id"), data.get("method")
    if not isinstance(method, str) or not isinstance(request_id, (int, str)):
        return None
    if isinstance(request_id, bool):
        return None
    cause = failure.__cause__ if failure.__cause__ is not None else failure
    return RejectedRequest(request_id, method, tuple(_problems(cause, "params" not in data)))


def _problems(cause: BaseException, params_missing: bool) -> list[str]:
    if params_missing:
        return ["params: required"]
    if not isinstance(cause, cattrs.BaseValidationError):
        return []
    found: list[str] = []
    for line in cattrs.transform_error(cause, format_exception=_what_is_wrong):
        what, _, where = line.rpartition(" @ ")
        field = _json_path(where)
        if " must be in the range" in what:  # the range check names the field itself
            inner, _, what = what.partition(" ")
            field = f"{field}.{inner}"
        problem = f"{field}: {what}" if field else what
        if problem not in found:
            found.append(problem)
    return found


def _what_is_wrong(exc: BaseException, type_: Any) -> str:
    """What the value must be, from the structuring failure (never the value itself)."""
    if isinstance(exc, KeyError):
        return "required"
    range_ = _LSP_INTEGER_RANGE.search(str(exc)) if isinstance(exc, ValueError) else None
    if range_ is not None:
        field, low, high = range_.groups()
        return f"{_camel(field)} must be in the range {low} to {high}"
    name = getattr(type_, "__name__", None)
    if name is None:
        return "invalid value"
    name = _JSON_TYPES.get(name, name)
    return f"must be {_article(name)} {name}"


def _article(name: str) -> str:
    return "an" if name[:1].lower() in "aeiou" else "a"


def _json_path(where: str) -> str:
    """`$.params.text_document.uri` -> `params.textDocument.uri` (the names clients send)."""
    parts = where.removeprefix("$").lstrip(".").split(".")
    return ".".join(_camel(part) for part in parts if part)


def _camel(name: str) -> str:
    return _SNAKE.sub(lambda match: match.group(1).upper(), name)
