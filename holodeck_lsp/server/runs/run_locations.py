"""Where the parts of a suite are written in an agent file, for the run features: the
`test_cases:` key, each case and turn, and the lines a failure is reported on (an
`expected_tools` entry and its arguments, `ground_truth`, a metric or grader entry).

Positions are code points (the parser's unit), 0-based `(line, character)`. A pure function
of the composed node tree — no I/O, no schema. A `test_cases_file` include is a suite too: a
list of cases at its top level (or under its own `test_cases:`); its cases are located by
their index in that list, which is their index in the agent's suite. Keys are looked up by the
loader's rule (`checker/suite_locator`: the last duplicate wins).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from holodeck_lsp.checker.suite_locator import (
    case_nodes,
    cases_entry,
    entry,
    scalar_text,
    turn_nodes,
)

Point = tuple[int, int]
Span = tuple[Point, Point]


def span_of(node: Node) -> Span:
    return (node.start_mark.line, node.start_mark.column), (
        node.end_mark.line,
        node.end_mark.column,
    )


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """One `expected_tools` entry: its own span and each asserted argument's `key: value`."""

    span: Span
    args: dict[str, Span] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TurnLocation:
    index: int
    #: The turn's first line (`- input: …` for a turn, the case's `input:` for a single turn).
    start: Point
    #: The `input: …` line's key-to-value span (the fall-back range of every failure).
    input: Span
    ground_truth: Span | None = None
    tools: tuple[ToolEntry, ...] = ()
    #: Metric / grader entries of the turn's (or case's) `evaluations`, by every name they carry.
    metrics: dict[str, Span] = field(default_factory=dict)
    #: Where the turn's text ends (a single turn: the case's end).
    end: Point | None = None
    #: The `input:` as written, when it is a plain string (a test's label in a Testing view).
    input_text: str | None = None


@dataclass(frozen=True, slots=True)
class CaseLocation:
    index: int
    start: Point
    #: Offsets of the case's text in the document (to notice that it was edited).
    start_offset: int
    end_offset: int
    turns: tuple[TurnLocation, ...]
    end: Point = (0, 0)
    #: The case's `name:` when it is a plain scalar.
    name: str | None = None
    #: The `simulated_user` key, when the case has a simulated user (its generated turns and
    #: the simulator's outcome are shown there: they are written nowhere in the file).
    simulated: Span | None = None


@dataclass(frozen=True, slots=True)
class SuiteLocation:
    #: The `test_cases:` key (an include's list: its first line).
    key: Point
    cases: tuple[CaseLocation, ...]
    #: The top-level `evaluations.metrics` entries, by every name they carry.
    metrics: dict[str, Span] = field(default_factory=dict)

    def case_text(self, text: str, index: int) -> str | None:
        for case in self.cases:
            if case.index == index:
                return text[case.start_offset : case.end_offset]
        return None


def _entries(node: Node) -> Iterator[tuple[str, Node, Node]]:
    if isinstance(node, MappingNode):
        for key, value in node.value:
            if isinstance(key, ScalarNode):
                yield str(key.value), key, value


def _key_value_span(pair: tuple[Node, Node]) -> Span:
    key, value = pair
    end = value if value.end_mark.line == key.start_mark.line else key
    return (key.start_mark.line, key.start_mark.column), (end.end_mark.line, end.end_mark.column)


def _metric_spans(node: Node | None) -> dict[str, Span]:
    """Each entry of a metrics list, by every scalar naming it (`metric`, `name`, `grader`)."""
    spans: dict[str, Span] = {}
    if not isinstance(node, SequenceNode):
        return spans
    for item in node.value:
        item_span = span_of(item)
        start = item_span[0]
        line_end = (start[0], start[1] + 1_000)  # to the end of the entry's first line
        for key_text, _key, value in _entries(item):
            if key_text in ("metric", "name", "grader") and isinstance(value, ScalarNode):
                spans.setdefault(str(value.value), (start, line_end))
                if key_text == "grader":  # reported by its callable's name (`mod:fn` -> `fn`)
                    spans.setdefault(str(value.value).rpartition(":")[2], (start, line_end))
    return spans


def _tools(node: Node | None) -> tuple[ToolEntry, ...]:
    if not isinstance(node, SequenceNode):
        return ()
    entries: list[ToolEntry] = []
    for item in node.value:
        args: dict[str, Span] = {}
        found = entry(item, "args")
        if found is not None:
            for name, key, value in _entries(found[1]):
                args[name] = _key_value_span((key, value))
        entries.append(ToolEntry(span_of(item), args))
    return tuple(entries)


def _turn(
    index: int, node: Node, start: Point, inherited: dict[str, Span], end: Point
) -> TurnLocation:
    found = entry(node, "input")
    input_span = _key_value_span(found) if found is not None else (start, start)
    truth = entry(node, "ground_truth")
    tools = entry(node, "expected_tools")
    evaluations = entry(node, "evaluations")
    metrics = {**inherited, **_metric_spans(evaluations[1] if evaluations else None)}
    return TurnLocation(
        index=index,
        start=start,
        input=input_span,
        ground_truth=_key_value_span(truth) if truth is not None else None,
        tools=_tools(tools[1] if tools else None),
        metrics=metrics,
        end=end,
        input_text=_text_of(found[1]) if found is not None else None,
    )


def _text_of(node: Node) -> str | None:
    if isinstance(node, ScalarNode) and isinstance(node.value, str) and node.value:
        return node.value
    return None


def locate_suite(root: Node | None, only: Collection[int] | None = None) -> SuiteLocation | None:
    """The suite's locations, or None when the file has no list of test cases of its own;
    with `only`, just those cases are located (the others are left out of `cases`)."""
    suite_metrics: dict[str, Span] = {}
    if isinstance(root, SequenceNode):  # an include: the list itself
        key: Node = root
    else:
        found = cases_entry(root)
        if found is None:
            return None
        key = found[0]
        top = entry(root, "evaluations")
        top_metrics = entry(top[1], "metrics") if top is not None else None
        suite_metrics = _metric_spans(top_metrics[1] if top_metrics else None)
    cases: list[CaseLocation] = []
    for index, case in enumerate(case_nodes(root)):
        if not isinstance(case, MappingNode) or (only is not None and index not in only):
            continue
        evaluations = entry(case, "evaluations")
        case_metrics = _metric_spans(evaluations[1] if evaluations else None)
        start, end = span_of(case)
        turn_items = turn_nodes(case)
        simulated = entry(case, "simulated_user")
        if turn_items is None and simulated is not None:
            turns: tuple[TurnLocation, ...] = ()  # every turn is generated
        elif turn_items is not None:
            turns = tuple(
                _turn(n, turn, span_of(turn)[0], case_metrics, span_of(turn)[1])
                for n, turn in enumerate(turn_items)
            )
        else:
            turns = (_turn(0, case, start, case_metrics, end),)
        named = scalar_text(case, "name")
        cases.append(
            CaseLocation(
                index,
                start,
                case.start_mark.index,
                case.end_mark.index,
                turns,
                end,
                None if named is None else named[1],
                span_of(simulated[0]) if simulated is not None else None,
            )
        )
    return SuiteLocation((key.start_mark.line, key.start_mark.column), tuple(cases), suite_metrics)


def case_texts(root: Node | None, text: str) -> dict[int, str]:
    """Each case's text by index, as `SuiteLocation.case_text` gives it — reading only the
    list's items, not their turns (this runs after every check of a large suite)."""
    return {
        index: text[case.start_mark.index : case.end_mark.index]
        for index, case in enumerate(case_nodes(root))
        if isinstance(case, MappingNode)
    }
