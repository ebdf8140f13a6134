"""What a turn stopped at the tool-round limit says, and the run's count of such turns
(docs/running.md, "Tool loop").

A backend stops a turn's tool loop after `max_tool_rounds` rounds (holodeck-lsp.yaml, `run
--max-tool-rounds`, default 20) and marks the turn `tool_limit_reached`. Grading gives the turn
the reason below as an error — the agent did not finish, as the agent frameworks count it — and
every report, the console and the editor show it; the summary line tells the author to raise
the limit when the agent needs more.
"""

from __future__ import annotations

from collections.abc import Iterable

from holodeck_lsp.schema.results import TestReport, ToolInvocation, TurnResult

#: What each `call_problem` means, in a failure message or a report.
PROBLEMS = {
    "unknown_tool": "no tool has that name",
    "invalid_json": "its arguments are not a JSON object",
    "bad_arguments": "its arguments do not fit the tool's signature",
}


def limit_reason(limit: int) -> str:
    """The error of a turn stopped at the limit."""
    return f"stopped after {limit} tool rounds: the limit"


def stopped_turns(report: TestReport) -> list[TurnResult]:
    """Every turn of the report stopped at the limit (a single-turn case's one turn too)."""
    return [
        turn
        for result in report.results
        for turn in result.turn_results()
        if turn.tool_limit_reached is not None
    ]


def limit_summary(turns: Iterable[TurnResult]) -> str | None:
    """`2 turns stopped at the tool-round limit (20): raise --max-tool-rounds`, or None."""
    limits = [t.tool_limit_reached for t in turns if t.tool_limit_reached is not None]
    count = len(limits)
    if not limits:
        return None
    shown = ", ".join(str(limit) for limit in sorted(set(limits)))
    noun = "turn" if count == 1 else "turns"
    return f"{count} {noun} stopped at the tool-round limit ({shown}): raise --max-tool-rounds"


def refused_call(call: ToolInvocation, limit: int = 80) -> str:
    """Why the call could not run, with the argument text the model sent ("" if it ran)."""
    if call.call_problem is None:
        return ""
    text = f"the call could not run: {PROBLEMS[call.call_problem]}"
    if call.raw_arguments is not None:
        raw = call.raw_arguments
        text += f" (sent {raw if len(raw) <= limit else raw[: limit - 1] + '…'!r})"
    return text
