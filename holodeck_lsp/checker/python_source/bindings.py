"""The vocabulary of top-level name analysis: what a name is bound to, and whether it can be
called. Shared by the statement scanner, the value classifier and `ModuleNames`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Callability(StrEnum):
    """Whether a bound value can be called, as far as reading the source tells."""

    CALLABLE = "callable"
    NOT_CALLABLE = "not_callable"
    UNKNOWN = "unknown"  # cannot tell statically: treat as fine


@dataclass(frozen=True, slots=True)
class NameBinding:
    """What a top-level name is bound to. `description` is a short noun phrase for messages
    ("function", "class", "int literal", "import of 'x'"); `line`/`col` are 0-based and point at
    the `def`/`class` keyword or the assigned name."""

    name: str
    callability: Callability
    description: str
    line: int
    col: int


#: Attributes every module object has, whatever its source binds.
MODULE_DUNDERS = frozenset(
    {"__name__", "__file__", "__doc__", "__package__", "__spec__", "__loader__", "__path__"}
)


#: The names bound so far at one point of the module, with what each is bound to.
Env = dict[str, NameBinding]
