"""A case of a run report as its conversation, in Markdown text: what Neovim and Emacs show in a
buffer (docs/reports.md, "Conversation as text").

Per turn a `## Turn N · verdict` heading, the user's input, each tool call on one line (name,
compact JSON arguments, `→` its result, long results cut), the agent's answer, the expected
answer and why the turn did not pass. With a second side — another run's report, or another
model of the same report — each turn shows both sides one after the other, each labelled, and
a `≠ differs: …` line on the turns whose verdict, answer or tool calls differ; the count of
such turns is said at the top.

The text is built as a list of lines joined once, and every tool result is cut before it is
serialised further, so a case of hundreds of turns with long tool results renders in linear
time (tests/reports/test_conversation_text.py times 500 turns).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from holodeck_lsp.reports.run.view import (
    Block,
    Case,
    case_status,
    cases,
    error_reason,
    failure_reasons,
    skip_reason,
)
from holodeck_lsp.schema.results import TestReport, ToolInvocation

#: A tool result longer than this is cut, with how much was left out.
RESULT_CHARACTERS: Final = 400
#: An argument object longer than this (as compact JSON) is cut too.
ARGUMENT_CHARACTERS: Final = 300
DIFFERS: Final = "≠ differs"


class NoSuchCase(LookupError):
    """The report has no such case (or not for that model / repeat); says which exist."""


@dataclass(frozen=True, slots=True)
class _Side:
    label: str
    case: Case | None
    #: The side's blocks by turn index (a single-turn case is turn 0).
    turns: dict[int, Block]


def render(
    report: TestReport,
    case_position: int,
    *,
    model: str | None = None,
    repeat: int | None = None,
    beside: tuple[str, TestReport] | str | None = None,
) -> str:
    """The case at `case_position` (its index in the suite) of `report` as a conversation.

    `model` / `repeat` choose one session of a model matrix or `--repeat` run (default: the
    first model, the first repeat). `beside`: `(label, other_report)` shows the same case of
    another run under each turn, or a model name shows that model's session of this report.
    Raises NoSuchCase when the case (or the other side's model) is not in the report."""
    case = find_case(report, case_position, model=model, repeat=repeat)
    head_label = case.result.model or report.agent_name
    if beside is None:
        return _single(report, case)
    other: Case | None
    if isinstance(beside, str):
        other = find_case(report, case_position, model=beside, repeat=repeat)
        other_label = beside
    else:
        other_label, other_report = beside
        other = _matching_case(other_report, case, model=model, repeat=repeat)
        head_label = "this run"  # its model, if any, is in the title
    return _paired(report, _side(head_label, case), _side(other_label, other))


def find_case(
    report: TestReport, position: int, *, model: str | None = None, repeat: int | None = None
) -> Case:
    """The session of the case at `position` for `model` and `repeat` (None: the first)."""
    found = [case for case in cases(report) if case.position == position]
    if not found:
        positions = sorted({case.position for case in cases(report)})
        raise NoSuchCase(
            f"no case #{position} in the run of {report.agent_name} "
            f"(its cases: {_listing(positions)}); run the case first"
        )
    if model is not None:
        of_model = [case for case in found if case.result.model == model]
        if not of_model:
            models = sorted({case.result.model or "-" for case in found})
            raise NoSuchCase(
                f"case #{position} was not run on model {model!r} (it ran on: "
                f"{', '.join(models)}); name one of those"
            )
        found = of_model
    else:
        order = {name: place for place, name in enumerate(report.models)}
        found.sort(key=lambda case: order.get(case.result.model or "", len(order)))
        found = [case for case in found if case.result.model == found[0].result.model]
    if repeat is not None:
        of_repeat = [case for case in found if (case.result.repeat or 1) == repeat]
        if not of_repeat:
            raise NoSuchCase(
                f"case #{position} has no repeat {repeat} (repeats: "
                f"{_listing(sorted(case.result.repeat or 1 for case in found))})"
            )
        found = of_repeat
    return min(found, key=lambda case: case.result.repeat or 1)


def _matching_case(
    other: TestReport, case: Case, *, model: str | None, repeat: int | None
) -> Case | None:
    """The same case in another run: by name when it has one (cases move), else by position;
    the same model when that run has it."""
    candidates = [
        found
        for found in cases(other)
        if (found.result.test_name == case.result.test_name and case.result.test_name)
        or (not case.result.test_name and found.position == case.position)
    ]
    if not candidates:
        return None
    wanted = model if model is not None else case.result.model
    wanted_model = wanted if any(c.result.model == wanted for c in candidates) else None
    try:
        return find_case(other, candidates[0].position, model=wanted_model, repeat=repeat)
    except NoSuchCase:
        return None


def _listing(numbers: Sequence[int]) -> str:
    return ", ".join(f"#{n}" for n in numbers[:20]) + (" …" if len(numbers) > 20 else "") or "none"


def _side(label: str, case: Case | None) -> _Side:
    turns = {} if case is None else {block.turn_index or 0: block for block in case.blocks}
    return _Side(label, case, turns)


def _title(report: TestReport, case: Case) -> list[str]:
    lines = [f"# {case.name} (case #{case.position}) — {report.agent_name}", ""]
    session = []
    if case.result.model:
        session.append(f"model `{case.result.model}`")
    if report.repeats > 1 and case.result.repeat is not None:
        session.append(f"repeat {case.result.repeat} of {report.repeats}")
    passed = case.turns_passed
    lines.append(f"**{_case_verdict(case)}**: {passed} of {len(case.blocks)} turns passed")
    if session:
        lines[-1] += " · " + ", ".join(session)
    return lines


def _case_verdict(case: Case) -> str:
    return case_status(case.result)


def _single(report: TestReport, case: Case) -> str:
    lines = _title(report, case)
    for block in case.blocks:
        index = block.turn_index or 0
        lines += ["", f"## Turn {index} · {block.status}", ""]
        lines += _exchange(block)
    return "\n".join(lines) + "\n"


def _paired(report: TestReport, head: _Side, other: _Side) -> str:
    assert head.case is not None
    lines = _title(report, head.case)
    indexes = sorted(head.turns.keys() | other.turns.keys())
    differing = {
        index: _differences(head.turns.get(index), other.turns.get(index)) for index in indexes
    }
    changed = [index for index in indexes if differing[index]]
    other_case = other.case
    if other_case is None:
        lines.append(f"**{other.label}**: this case was not run there")
    else:
        lines.append(
            f"**{other.label}**: {_case_verdict(other_case)}, "
            f"{other_case.turns_passed} of {len(other_case.blocks)} turns passed"
        )
    count = f"{len(changed)} of {len(indexes)} turns differ"
    if changed:
        count += " (turns " + ", ".join(str(index) for index in changed) + ")"
    lines += ["", f"**{DIFFERS}**: {count} between {head.label} and {other.label}"]
    for index in indexes:
        mine, theirs = head.turns.get(index), other.turns.get(index)
        verdicts = f"{head.label}: {_status(mine)} · {other.label}: {_status(theirs)}"
        lines += ["", f"## Turn {index} · {verdicts}"]
        if differing[index]:
            lines += ["", f"{DIFFERS}: {', '.join(differing[index])}"]
        for label, block in ((head.label, mine), (other.label, theirs)):
            lines += ["", f"### {label}", ""]
            lines += _exchange(block) if block is not None else ["(no such turn in this run)"]
    return "\n".join(lines) + "\n"


def _status(block: Block | None) -> str:
    return "absent" if block is None else block.status


def _differences(mine: Block | None, theirs: Block | None) -> list[str]:
    """What differs between the two sides of a turn: verdict, answer, tool calls."""
    if mine is None or theirs is None:
        return ["turn present on one side only"]
    found = []
    if mine.status != theirs.status:
        found.append("verdict")
    if (mine.response or "").strip() != (theirs.response or "").strip():
        found.append("answer")
    if _calls(mine.tool_invocations) != _calls(theirs.tool_invocations):
        found.append("tool calls")
    return found


def _calls(invocations: Sequence[ToolInvocation]) -> list[tuple[str, str]]:
    return [(call.name, _compact(call.args)) for call in invocations]


def _exchange(block: Block) -> list[str]:
    """One side of a turn: input, tool calls, answer, expected answer, why it did not pass."""
    lines = [f"**user:** {_text(block.input)}"]
    if block.tool_invocations:
        lines.append("")
        lines += [_tool_line(call) for call in block.tool_invocations]
    elif block.tool_calls:  # names only (an older report)
        lines.append("")
        lines += [f"- tool `{name}`" for name in block.tool_calls]
    lines.append("")
    answer = block.response
    lines.append(f"**agent:** {_text(answer)}" if answer is not None else "**agent:** (no answer)")
    if block.ground_truth is not None:
        lines += ["", f"**expected:** {_text(block.ground_truth)}"]
    why = _why(block)
    if why:
        lines += ["", f"**why it {_why_word(block)}:**", *(f"- {_flat(reason)}" for reason in why)]
    return lines


def _why_word(block: Block) -> str:
    return {"skipped": "was skipped", "errored": "errored"}.get(block.status, "failed")


def _why(block: Block) -> list[str]:
    if block.status == "skipped":
        return [skip_reason(block)]
    if block.status == "errored":
        return [error_reason(block)]
    return failure_reasons(block) if block.status == "failed" else []


def _tool_line(call: ToolInvocation) -> str:
    line = f"- tool `{call.name}` {_cut(_compact(call.args), ARGUMENT_CHARACTERS)}"
    if call.call_problem is not None:
        line += f" — call problem: {call.call_problem}"
    if call.error is not None:
        return f"{line} → error: {_cut(call.error, RESULT_CHARACTERS)}"
    return f"{line} → {_result(call.result)}"


def _result(result: Any) -> str:
    if result is None:
        return "(nothing)"
    if isinstance(result, str):
        return _cut(result, RESULT_CHARACTERS)
    return _cut(_compact(result), RESULT_CHARACTERS)


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def _cut(text: str, limit: int) -> str:
    """At most `limit` characters on one line, then how many more there were."""
    if len(text) <= limit:
        return _flat(text)
    return f"{_flat(text[:limit])}… ({len(text) - limit} more characters)"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _text(text: str | None) -> str:
    """Free text of the conversation: kept whole, its later lines indented so a line of the
    agent's that looks like a heading stays inside its turn."""
    if not text:
        return "(empty)"
    return text.strip().replace("\n", "\n    ")
