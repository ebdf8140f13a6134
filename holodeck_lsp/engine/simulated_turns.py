"""The rules of a simulated-user conversation, pure (docs/simulated-users.md): what each agent
turn asserts and which metrics grade it, the `at_end` checks over the whole conversation, when
the simulator's message ends it, and when that message is the simulator's own failure (it
wrote as the agent, or leaked its instructions).

The runner (runner/execution/simulation/) drives the conversation and calls these; the
same rules grade a replayed conversation, so a recording and its replay can never be judged
differently.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence

from holodeck_lsp.engine.judging import Judging
from holodeck_lsp.engine.turn_grading import (
    GraderFn,
    GradingOptions,
    TurnOutcome,
    TurnSpec,
    grade_turn,
)
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.llm import model_label
from holodeck_lsp.schema.metrics import AnyMetric
from holodeck_lsp.schema.results import MetricResult, ToolInvocation, TurnResult
from holodeck_lsp.schema.simulated_user import AtTurnChecks, SimulatedUser
from holodeck_lsp.schema.test_case import TestCase

#: How the at_end pseudo-turn is named in reports.
AT_END_INPUT = "(at end: the whole conversation)"
#: A run of this many words of the instructions, found in a message, is a leak.
LEAK_WORDS = 12

#: What an agent's message looks like and a user's never does: a role label at the start, or
#: tool-call syntax of the chat APIs (docs/simulated-users.md, "Trust").
_ROLE_PREFIX = re.compile(r"^\s*(assistant|agent|ai|system|tool)\s*:", re.IGNORECASE)
_TOOL_SYNTAX = re.compile(
    r'"tool_calls"\s*:|"function_call"\s*:|"type"\s*:\s*"tool_use"|<tool_use\b|<tool_call\b'
    r'|<function_calls\b|<invoke\b|\{\s*"name"\s*:\s*"[^"]*"\s*,\s*"(arguments|input)"\s*:',
    re.IGNORECASE,
)


def simulator_label(simulated: SimulatedUser) -> str:
    return model_label(simulated.model.provider, simulated.model.name)


def prompt_fingerprint(simulated: SimulatedUser) -> str:
    """sha256 of the simulator's model and instructions: equal fingerprints, same user."""
    text = f"{simulator_label(simulated)}\n{simulated.instructions}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def at_turn_checks(simulated: SimulatedUser, index: int) -> AtTurnChecks | None:
    """The `at_turn` entry of agent turn `index` (0-based; entries count from 1)."""
    for checks in simulated.at_turn or ():
        if checks.turn == index + 1:
            return checks
    return None


def conversation_turn_spec(case: TestCase, index: int, user_message: str) -> TurnSpec:
    """What agent turn `index` asserts: a scripted turn's own assertions, else its `at_turn`
    entry's (a scripted turn without its own takes the entry's)."""
    simulated = case.simulated_user
    checks = at_turn_checks(simulated, index) if simulated is not None else None
    scripted = case.turns[index] if case.turns is not None and index < len(case.turns) else None
    base = TurnSpec.of_turn(scripted, index) if scripted is not None else None
    ground_truth = base.ground_truth if base is not None else None
    expected = base.expected_tools if base is not None else None
    if checks is not None:
        ground_truth = ground_truth or checks.ground_truth
        if expected is None and checks.expected_tools is not None:
            expected = tuple(checks.expected_tools)
    return TurnSpec(
        index=index,
        input=user_message,
        ground_truth=ground_truth,
        expected_tools=expected,
        retrieval_context=base.retrieval_context if base is not None else None,
        turn_config=base.turn_config if base is not None else {},
    )


def conversation_turn_metrics(agent: Agent, case: TestCase, index: int) -> list[AnyMetric]:
    """The most specific non-empty list wins: the scripted turn's own `evaluations`, its
    `at_turn` entry's, `every_turn`'s, the case's, the agent's."""
    simulated = case.simulated_user
    scripted = case.turns[index] if case.turns is not None and index < len(case.turns) else None
    checks = at_turn_checks(simulated, index) if simulated is not None else None
    every = simulated.every_turn if simulated is not None else None
    candidates = (
        scripted.evaluations if scripted is not None else None,
        checks.evaluations if checks is not None else None,
        every.evaluations if every is not None else None,
        case.evaluations,
        agent.evaluations.metrics if agent.evaluations else None,
    )
    for metrics in candidates:
        if metrics:
            return list(metrics)
    return []


def every_simulated_metric(agent: Agent, case: TestCase) -> list[AnyMetric]:
    """Every metric a simulated case may grade with (graders to load, judges to prepare)."""
    simulated = case.simulated_user
    if simulated is None:
        return []
    found: list[AnyMetric] = []
    for index in range(len(case.turns or ()) + simulated.max_turns):
        found += conversation_turn_metrics(agent, case, index)
    if simulated.at_end is not None:
        found += simulated.at_end.evaluations or []
    return found


# -- the simulator's messages ------------------------------------------------------------------


def stop_marker_in(message: str, markers: Sequence[str]) -> str | None:
    return next((marker for marker in markers if marker in message), None)


def written_as_agent(message: str) -> str | None:
    """Why `message` reads as the agent's, or None (the rule: docs/simulated-users.md)."""
    if _ROLE_PREFIX.search(message):
        return "it starts with a role label (`assistant:`, `agent:`, …)"
    found = _TOOL_SYNTAX.search(message)
    if found:
        return f"it contains tool-call syntax ({found.group(0)[:40]!r})"
    return None


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def leaked_instructions(message: str, instructions: str) -> str | None:
    """Why `message` repeats its instructions verbatim, or None: any run of LEAK_WORDS words
    of the instructions (all of them, when shorter), ignoring case and punctuation."""
    said = " " + " ".join(_words(message)) + " "
    words = _words(instructions)
    size = min(LEAK_WORDS, len(words))
    if size < 5:
        return None  # too short to tell a leak from an ordinary sentence
    for start in range(len(words) - size + 1):
        run = " ".join(words[start : start + size])
        if f" {run} " in said:
            return f"it repeats its instructions verbatim ({run[:60]!r}…)"
    return None


def broke_persona(message: str, never_says: Sequence[str] | None) -> str | None:
    """Why `message` breaks the persona (it says what `never_says` forbids), or None."""
    lowered = message.lower()
    said = next((text for text in never_says or () if text.lower() in lowered), None)
    return None if said is None else f"it wrote {said!r}, which its never_says forbids"


# -- at the end --------------------------------------------------------------------------------


def missing_information(info: Sequence[str], responses: Sequence[str | None]) -> list[str]:
    """The `communicate_info` strings no agent response contains, as τ²-bench checks them:
    case-insensitive, commas removed."""
    said = [(text or "").lower().replace(",", "") for text in responses]
    return [item for item in info if not any(item.lower().replace(",", "") in s for s in said)]


def at_end_spec(case: TestCase, index: int, transcript: str) -> TurnSpec:
    at_end = case.simulated_user.at_end if case.simulated_user is not None else None
    return TurnSpec(
        index=index,
        input=transcript,
        ground_truth=at_end.ground_truth if at_end is not None else None,
        expected_tools=tuple(at_end.expected_tools)
        if at_end is not None and at_end.expected_tools is not None
        else None,
    )


def transcript(turns: Sequence[TurnResult]) -> str:
    """The conversation as a judge of the whole of it reads it."""
    lines: list[str] = []
    for turn in turns:
        lines.append(f"User: {turn.input}")
        lines.append(f"Agent: {turn.response or ''}")
    return "\n".join(lines)


def grade_at_end(
    case: TestCase,
    turns: Sequence[TurnResult],
    *,
    graders: Mapping[str, GraderFn] | None = None,
    options: GradingOptions | None = None,
    judging: Judging | None = None,
) -> TurnResult | None:
    """The `at_end` checks over the answered turns (None: the case has none)."""
    simulated = case.simulated_user
    if simulated is None or simulated.at_end is None:
        return None
    at_end = simulated.at_end
    answered = [turn for turn in turns if not turn.skipped and not turn.errored]
    calls: tuple[ToolInvocation, ...] = tuple(c for t in answered for c in t.tool_invocations)
    spec = at_end_spec(case, len(turns), transcript(answered))
    last = answered[-1].response if answered else None
    outcome = TurnOutcome(response=last, tool_invocations=calls)
    result = grade_turn(
        spec,
        outcome,
        at_end.evaluations or [],
        case_name=case.name,
        graders=graders,
        options=options,
        judging=judging,
    )
    result.input = AT_END_INPUT
    if at_end.communicate_info:
        missing = missing_information(at_end.communicate_info, [t.response for t in answered])
        told = len(at_end.communicate_info) - len(missing)
        result.metric_results.append(
            MetricResult(
                metric_name="communicate_info",
                score=told / len(at_end.communicate_info),
                threshold=1.0,
                passed=not missing,
                reasoning="the agent never said: " + ", ".join(repr(m) for m in missing)
                if missing
                else "the agent said every string",
            )
        )
        result.passed = result.passed and not missing
    return result
