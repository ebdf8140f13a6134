"""Where in the suite a fault lies, kept apart from what is wrong with it.

A diagnostic's `message` is the cause and the fix (`regex does not compile: … ; fix the
pattern …`); its `Where` names the test case, turn, expected tool and argument, and the rest of
the field path. Every place that shows a diagnostic composes the two the same way, here:

- one-line readers (the editor's message, JSON `message`, SARIF, GitHub annotations) get the
  cause first and the location as a short suffix — `… (case 'c1', turn 2, tool add, arg a,
  regex)` — because VS Code's Problems row and Neovim's virtual text are cut at the window's
  edge: whatever comes first is what people see, and the range already points at the line;
- `check`'s text output keeps the full location, compiler style, in the same line:
  `… (in test case 'c1', turn 2, expected tool 'add', arg 'a', `regex`)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from holodeck_lsp.checker.data_walk import data_at


@dataclass(frozen=True, slots=True)
class Step:
    """One named step of a location: `kind` is case, turn, tool or arg."""

    kind: str
    name: str


_FULL_WORDS = {"case": "test case", "turn": "turn", "tool": "expected tool", "arg": "arg"}


@dataclass(frozen=True, slots=True)
class Where:
    """The named steps (inside a test case) and the rest of the field path after them; outside
    a test case there are no steps and `field` is the whole path (`model.provider`)."""

    steps: tuple[Step, ...] = ()
    field: str = ""

    def __bool__(self) -> bool:
        return bool(self.steps or self.field)

    def short(self) -> str:
        """`case 'c1', turn 2, tool add, arg a, regex` — for the end of a one-line message."""
        parts = [
            f"case {s.name!r}"
            if s.kind == "case" and not s.name.startswith("#")
            else f"{s.kind} {s.name}"
            for s in self.steps
        ]
        if self.field:
            parts.append(self.field)
        return ", ".join(parts)

    def full(self) -> str:
        """`test case 'c1', turn 2, expected tool 'add', arg 'a', `regex``."""
        parts = [
            f"{_FULL_WORDS[s.kind]} {s.name}"
            if s.kind == "turn" or s.name.startswith("#")
            else f"{_FULL_WORDS[s.kind]} {s.name!r}"
            for s in self.steps
        ]
        if self.field:
            parts.append(f"`{self.field}`" if self.steps else self.field)
        return ", ".join(parts)


#: The location of a fault that is not tied to a field (a YAML syntax error, an include).
NOWHERE = Where()


def format_path(path: Sequence[str | int]) -> str:
    """`('test_cases', 0, 'turns', 2)` -> `test_cases[0].turns[2]`."""
    text = ""
    for element in path:
        if isinstance(element, int):
            text += f"[{element}]"
        else:
            text += f".{element}" if text else str(element)
    return text


def case_label(data: Any, index: int) -> str:
    """The case's name, or `#index` for an unnamed case: how reports name a test case."""
    case = data_at(data, ("test_cases", index))
    name = case.get("name") if isinstance(case, dict) else None
    return name if isinstance(name, str) and name.strip() else f"#{index}"


def where_of(data: Any, path: Sequence[str | int]) -> tuple[Where, str | None]:
    """Where `path` (an agent path) lies, and the case label when it is inside a test case."""
    steps: list[Step] = []
    label: str | None = None
    named_until = 0
    for position, element in enumerate(path):
        previous = path[position - 1] if position else None
        step: Step | None = None
        if previous == "test_cases" and isinstance(element, int):
            label = case_label(data, element)
            step = Step("case", label)
        elif not steps:
            continue
        elif previous == "turns" and isinstance(element, int):
            step = Step("turn", str(element))
        elif previous == "expected_tools" and isinstance(element, int):
            entry = data_at(data, path[: position + 1])
            name = entry.get("name") if isinstance(entry, dict) else entry
            step = Step("tool", name) if isinstance(name, str) else None
        elif previous == "args" and isinstance(element, str):
            step = Step("arg", element)
        if step is not None:
            steps.append(step)
            named_until = position + 1
    if not steps:
        return Where(field=format_path(path)), None
    tail = [e for e in path[named_until:] if e != "args"]
    if not tail:
        return Where(tuple(steps)), label
    if isinstance(tail[0], str):
        field = format_path(tail)
    elif path[named_until] == "args":  # a key that is no string: `args[1]`
        field = format_path(path[named_until:])
    else:  # an index right after a named step (`a: [..]`): `a[0]`
        field = format_path(path[named_until - 1 :])
    return Where(tuple(steps), field), label
