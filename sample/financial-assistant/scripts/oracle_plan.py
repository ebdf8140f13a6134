"""What the oracle answers: for every turn of the sample's dialogues, the tool calls of the
gold program (and a `lookup` for a value that sits in one table cell) and the final answer —
some turns deliberately wrong when asked — and, given the conversation so far, the next step.
Shared by both wire formats (oracle_apis.py); see oracle_server.py.
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SAMPLE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SAMPLE_DIR))

from convfinqa import (  # noqa: E402  (the sample folder is not a package)
    OPERATIONS,
    cells_holding,
    parse_number,
    parse_program,
    resolve,
)


@dataclass(frozen=True)
class Call:
    """One tool call the oracle will make; operands may be `#N` (the Nth call's result)."""

    tool: str
    args: dict[str, Any]


@dataclass
class TurnPlan:
    case: str
    turn: int
    question: str
    answer: str
    calls: list[Call]
    mistake: str | None = None  # what was perturbed, for the log and /oracle/plan
    refs: list[dict[str, int]] = field(default_factory=list)  # arg -> call index, per call


def _format_like(value: float, gold: str) -> str:
    """`value` written the way the dataset wrote `gold` (percent sign, decimals)."""
    text = gold.strip()
    percent = text.endswith("%")
    body = text[:-1] if percent else text
    decimals = len(body.split(".", 1)[1]) if "." in body else 0
    shown = value * 100 if percent else value
    return f"{shown:.{decimals}f}" + ("%" if percent else "")


def _other_cell(
    table: Mapping[str, Mapping[str, object]], value: float
) -> tuple[str, str, float] | None:
    """A plausible wrong reading of `value`: the same row, a neighbouring column."""
    cells = cells_holding(table, value)
    if len(cells) != 1:
        return None
    row, column = cells[0]
    columns = list(table)
    position = columns.index(column)
    for other in columns[position + 1 :] + columns[:position][::-1]:
        cell = table[other].get(row)
        if isinstance(cell, int | float) and not isinstance(cell, bool) and cell != value:
            return row, other, float(cell)
    return None


def _turn_plan(dialogue: Mapping[str, Any], turn: int, wrong: bool) -> TurnPlan:
    record_id = dialogue["id"]
    table = dialogue["doc"]["table"]
    question = dialogue["dialogue"]["conv_questions"][turn]
    answer = dialogue["dialogue"]["conv_answers"][turn]
    program = parse_program(dialogue["dialogue"]["turn_program"][turn])
    plan = TurnPlan(dialogue["test_case"]["name"], turn, question, answer, [])

    if not program.steps:  # a value read from the page
        assert program.bare_value is not None
        value = program.bare_value
        cells = cells_holding(table, value)
        if len(cells) == 1:
            row, column = cells[0]
            if wrong and (slip := _other_cell(table, value)) is not None:
                row, column, value = slip
                plan.mistake = f"looked up column {column!r} instead of {cells[0][1]!r}"
            plan.calls.append(
                Call("lookup", {"document_id": record_id, "row": row, "column": column})
            )
        if wrong and plan.mistake is None:
            value *= 1.1
            plan.mistake = "read the figure 10% too high"
        if plan.mistake:
            plan.answer = _format_like(value, answer)
        return plan

    # Steps of the program; a perturbed turn misreads the last step's first written number.
    gold = program.values()
    slipped: tuple[int, int, float] | None = None
    if wrong:
        for step in reversed(program.steps):
            literal = [i for i, o in enumerate(step.operands) if o.kind == "literal"]
            if literal:
                slot = literal[0]
                original = resolve(step.operands[slot], gold)
                other = _other_cell(table, original)
                replacement = other[2] if other else round(original * 1.1, 2)
                slipped = (step.index, slot, replacement)
                where = f"column {other[1]!r}" if other else "a figure 10% too high"
                plan.mistake = (
                    f"step {step.index} {step.text}: used {replacement:g} ({where}) "
                    f"for {original:g}"
                )
                break
    values: list[float | str] = []
    for step in program.steps:
        operands: list[float] = []
        refs: dict[str, int] = {}
        for slot, (name, operand) in enumerate(zip(("a", "b"), step.operands, strict=True)):
            number = resolve(operand, values)
            if slipped is not None and slipped[:2] == (step.index, slot):
                number = slipped[2]
            if operand.ref is not None:
                refs[name] = operand.ref
            operands.append(number)
        values.append(OPERATIONS[step.operation](operands[0], operands[1]))
        plan.calls.append(Call(step.operation, {"a": operands[0], "b": operands[1]}))
        plan.refs.append(refs)
    if plan.mistake:
        final = values[-1]
        plan.answer = final if isinstance(final, str) else _format_like(final, answer)
    return plan


def build_plans(subset: Mapping[str, Any], mistakes: float, seed: int) -> dict[str, list[TurnPlan]]:
    """Every dialogue's turns, by document id; which turns go wrong depends only on the seed."""
    rng = random.Random(seed)
    plans: dict[str, list[TurnPlan]] = {}
    for dialogue in subset["dialogues"]:
        turns = len(dialogue["dialogue"]["conv_questions"])
        plans[dialogue["id"]] = [
            _turn_plan(dialogue, turn, rng.random() < mistakes) for turn in range(turns)
        ]
    return plans


# ----------------------------------------------------------------------------- the next step


class OracleError(Exception):
    """A request the oracle cannot answer; sent back as a 400 error in the API's format."""


@dataclass(frozen=True)
class UserText:
    text: str  # one text part of a user message: a question, an attached page, a reminder


@dataclass(frozen=True)
class ToolCalled:
    id: str


@dataclass(frozen=True)
class ToolReturned:
    id: str  # the call's id
    result: Any


#: A conversation as the oracle reads it, whichever API it came in. Order matters only for
#: the user texts: clients merge and reorder messages (the Claude CLI packs tool results and
#: the next question into one message), so calls and results are matched by their ids.
Event = UserText | ToolCalled | ToolReturned


@dataclass(frozen=True)
class CallTool:
    """Next step: call `name` (as the agent offers it) with `args`."""

    id: str
    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Answer:
    """Next step: the final answer of the turn."""

    text: str


def _tool_name(tool: str, offered: Sequence[str]) -> str:
    """The offered name of `tool`: `tools-subtract` (Semantic Kernel), `mcp__tools__subtract`
    (Claude) or `subtract`."""
    for name in offered:
        if name == tool or name.endswith((f"-{tool}", f"_{tool}")):
            return name
    raise OracleError(
        f"the agent offers no {tool!r} tool (it offers: {', '.join(offered) or 'none'})"
    )


def _result_number(result: Any, fallback: float) -> float:
    try:
        return parse_number(str(result).strip())
    except ValueError:
        return fallback


#: The first line of a page as the converter renders it (render_document).
_DOCUMENT_ID = re.compile(r"^Document id: (.+?)[ \t]*$", re.MULTILINE)


class Oracle:
    def __init__(self, plans: dict[str, list[TurnPlan]]) -> None:
        self.plans = plans

    def _dialogue(self, texts: Sequence[str]) -> list[TurnPlan]:
        # The page's id line, looked up by the whole id: one dict lookup however many
        # dialogues are served (the whole dev split), and `….pdf` never matches `….pdf-1`.
        for text in texts:
            for match in _DOCUMENT_ID.finditer(text):
                if match.group(1) in self.plans:
                    return self.plans[match.group(1)]
        for turns in self.plans.values():  # no page attached: the first question decides
            if texts and turns[0].question in texts[0]:
                return turns
        first = texts[0][:80] if texts else ""
        raise OracleError(
            f"the oracle only knows the sample's ConvFinQA dialogues; not this one ({first!r})"
        )

    def next_step(self, events: Sequence[Event], tools: Sequence[str]) -> CallTool | Answer:
        texts = [event.text for event in events if isinstance(event, UserText)]
        turns = self._dialogue(texts)
        questions = {plan.question for plan in turns}
        asked = sum(text.strip() in questions for text in texts)  # the questions so far
        if asked == 0:
            raise OracleError("no question of the dialogue in the request")
        if asked > len(turns):
            raise OracleError(f"the dialogue has {len(turns)} questions; this is question {asked}")
        plan = turns[asked - 1]
        if texts and plan.question not in {t.strip() for t in texts}:
            raise OracleError(f"question {asked} should be {plan.question!r}")
        # this turn's calls, by the ids the oracle gave them
        prefix = f"call_{plan.case}_{plan.turn}_"
        made = {event.id for event in events if isinstance(event, ToolCalled)}
        results = {e.id: e.result for e in events if isinstance(e, ToolReturned)}
        done = sum(f"{prefix}{n}" in made for n in range(len(plan.calls)))
        if done >= len(plan.calls):
            return Answer(plan.answer)
        call = plan.calls[done]
        args = dict(call.args)
        # `#N` is what the tool returned for call N (it may differ from the program's value).
        for name, ref in (plan.refs[done] if call.tool != "lookup" else {}).items():
            if f"{prefix}{ref}" in results:
                args[name] = _result_number(results[f"{prefix}{ref}"], args[name])
        return CallTool(f"{prefix}{done}", _tool_name(call.tool, tools), args)
