"""The ConvFinQA program language and page tables, shared by the sample's tools, grader,
converter and oracle server.

A ConvFinQA turn carries a `turn_program`: either a bare value read from the page (`60.94`)
or a list of steps, `subtract(60.94, 25.14), divide(#0, 25.14)`, where `#N` is the result of
step N of the same program and `const_100` / `const_m1` are the constants 100 and -1. A turn's
program repeats the steps of earlier turns it builds on, so `#0` above is the change the
previous question computed.

Plain Python, no dependencies: `tools.py` and `graders.py` import it from this folder.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

# ----------------------------------------------------------------------------- arithmetic


def _divide(a: float, b: float) -> float:
    if b == 0:
        raise ZeroDivisionError("division by zero: b is 0")
    return a / b


#: The operations of the ConvFinQA program language that act on two numbers, as the sample's
#: tools implement them. `greater` answers "yes"/"no", as the dataset's answers do.
OPERATIONS: dict[str, Callable[[float, float], float | str]] = {
    "add": lambda a, b: a + b,
    "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b,
    "divide": _divide,
    "exp": lambda a, b: a**b,
    "greater": lambda a, b: "yes" if a > b else "no",
}

#: Operations whose operands may come in either order.
COMMUTATIVE = frozenset({"add", "multiply"})

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?%?")


def parse_number(text: str) -> float:
    """`142.4%` -> 1.424, `-4` -> -4.0, `1,018` -> 1018.0; ValueError if it is no number."""
    cleaned = text.strip().replace(",", "").replace("$", "")
    if not _NUMBER.fullmatch(cleaned):
        raise ValueError(f"{text!r} is not a number")
    if cleaned.endswith("%"):
        return float(cleaned[:-1]) / 100
    return float(cleaned)


def close(actual: float, expected: float, relative: float = 0.005) -> bool:
    """Whether two operands agree: within `relative` of the expected value, so a result the
    agent rounded to a few significant digits (1.424 for 1.42403) still counts."""
    return math.isclose(actual, expected, rel_tol=relative, abs_tol=1e-9)


# ----------------------------------------------------------------------------- programs


@dataclass(frozen=True)
class Operand:
    """One argument of a step: a number written in the program, a `const_`, or `#N`."""

    text: str
    value: float | None  # None for a reference
    ref: int | None = None

    @property
    def kind(self) -> str:
        if self.ref is not None:
            return "ref"
        return "const" if self.text.startswith("const_") else "literal"


@dataclass(frozen=True)
class Step:
    """One operation of a program, e.g. `divide(#0, 25.14)`."""

    index: int
    operation: str
    operands: tuple[Operand, Operand]

    @property
    def text(self) -> str:
        return f"{self.operation}({', '.join(o.text for o in self.operands)})"


@dataclass(frozen=True)
class Program:
    """A parsed `turn_program`: its steps, or (for a bare value) no steps and that value."""

    source: str
    steps: tuple[Step, ...]
    bare_value: float | None = None

    def values(self) -> list[float | str]:
        """The result of every step, in order (`#N` resolved)."""
        results: list[float | str] = []
        for step in self.steps:
            a, b = (resolve(operand, results) for operand in step.operands)
            results.append(OPERATIONS[step.operation](a, b))
        return results


_STEP = re.compile(r"\s*([a-z_]+)\(([^()]*)\)\s*(?:,|$)")


def _constant(text: str) -> float:
    body = text[len("const_") :]
    if body.startswith("m"):
        return -float(body[1:])
    return float(body)


def _operand(text: str, index: int) -> Operand:
    text = text.strip()
    if text.startswith("#"):
        ref = int(text[1:])
        if not 0 <= ref < index:
            raise ValueError(f"step {index} refers to #{ref}, which is not an earlier step")
        return Operand(text, None, ref)
    if text.startswith("const_"):
        return Operand(text, _constant(text))
    return Operand(text, parse_number(text))


def parse_program(source: str) -> Program:
    """Parse a `turn_program`; ValueError names what could not be read."""
    text = source.strip()
    if not text:
        raise ValueError("the program is empty")
    if "(" not in text:
        return Program(source, (), parse_number(text))
    steps: list[Step] = []
    position = 0
    while position < len(text):
        match = _STEP.match(text, position)
        if match is None:
            raise ValueError(f"cannot read the program from {text[position:]!r}")
        operation, raw_args = match.group(1), match.group(2)
        if operation not in OPERATIONS:
            raise ValueError(f"unknown operation {operation!r} (known: {', '.join(OPERATIONS)})")
        args = raw_args.split(",")
        if len(args) != 2:
            raise ValueError(f"{operation} takes two operands, got {raw_args!r}")
        index = len(steps)
        first, second = (_operand(arg, index) for arg in args)
        steps.append(Step(index, operation, (first, second)))
        position = match.end()
    return Program(source, tuple(steps))


def resolve(operand: Operand, results: Sequence[float | str]) -> float:
    """An operand's number; `#N` is the result of step N."""
    if operand.ref is None:
        assert operand.value is not None
        return operand.value
    value = results[operand.ref]
    if isinstance(value, str):
        raise ValueError(f"#{operand.ref} is {value!r}, not a number")
    return value


def program_answer(program: Program) -> float | str:
    """What the program computes: its last step's result, or its bare value."""
    if not program.steps:
        assert program.bare_value is not None
        return program.bare_value
    return program.values()[-1]


# ----------------------------------------------------------------------------- page tables


def normalise_name(name: str) -> str:
    """How table row and column names are compared: case and runs of spaces ignored."""
    return " ".join(name.lower().split())


Table = Mapping[str, Mapping[str, object]]  # ConvFinQA's shape: {column: {row: value}}


def table_rows(table: Table) -> list[str]:
    """Row names in first-seen order."""
    seen: dict[str, None] = {}
    for column in table.values():
        for row in column:
            seen.setdefault(row, None)
    return list(seen)


def cells_holding(table: Table, value: float) -> list[tuple[str, str]]:
    """Every (row, column) whose number equals `value`."""
    found = []
    for column, rows in table.items():
        for row, cell in rows.items():
            numeric = isinstance(cell, int | float) and not isinstance(cell, bool)
            if numeric and math.isclose(float(cell), value, rel_tol=1e-9, abs_tol=1e-9):  # type: ignore[arg-type]
                found.append((row, column))
    return found


class UnknownCell(LookupError):
    """A row or column that is not in the table; the message lists what is."""


def table_value(table: Table, row: str, column: str) -> object:
    """The cell at `row` / `column`, names compared with `normalise_name`."""
    columns = {normalise_name(name): name for name in table}
    wanted_column = columns.get(normalise_name(column))
    if wanted_column is None:
        raise UnknownCell(
            f"no column {column!r}; the columns are: " + "; ".join(repr(c) for c in table)
        )
    rows = table[wanted_column]
    by_name = {normalise_name(name): name for name in rows}
    wanted_row = by_name.get(normalise_name(row))
    if wanted_row is None:
        raise UnknownCell(
            f"no row {row!r}; the rows are: " + "; ".join(repr(r) for r in table_rows(table))
        )
    return rows[wanted_row]
