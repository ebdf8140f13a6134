"""Per-turn `expected_tools` assertions: were the tools called, with matching arguments?

Call selection (docs/grading.md#expected-tools-and-argument-matchers): the candidates for an
assertion are this turn's calls whose name contains the expected name (case-sensitive
substring, in call order); a candidate matches when every asserted argument is present and
satisfies its matcher (other arguments are ignored); the assertion passes when at least
`count` candidates match. Only the turn's own calls are ever passed in, so calls from other
turns cannot count.

Failure reasons name exactly what differed. When no candidate matched, the reason is the
one of the *closest* candidate: the one satisfying the most asserted arguments, the earliest
on a tie; its first failing argument (in the order the YAML lists them) is reported, with
`(closest of N calls, index I)` appended when there were several candidates. A call that could
not run as sent (docs/running.md, "Tool loop") says so: the closest call's problem and the
argument text the model sent, and unknown names are marked in the "was not called" list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from holodeck_lsp.engine.matchers import RegexError, describe_mismatch, matches
from holodeck_lsp.engine.tool_loop import refused_call
from holodeck_lsp.schema.matchers import ArgMatcherValue, dump_arg_matcher
from holodeck_lsp.schema.results import ArgMatchDetail, ToolInvocation
from holodeck_lsp.schema.test_case import ExpectedTool

__all__ = ["check_expected_tools"]

#: Called-tool names listed in a "was not called" reason before the rest is summarised.
_LISTED_NAMES = 10

_Asserted = tuple[tuple[str, ArgMatcherValue], ...]


class _Miss(NamedTuple):
    """Why one candidate call failed: built only on the failure path."""

    matched_args: int  # asserted args this call did satisfy (closeness)
    call_index: int  # index in the turn's calls
    key: str  # the first asserted arg that failed
    matcher: ArgMatcherValue
    present: bool  # False: the arg was missing
    actual: Any
    error: str | None  # RegexError text (timeout, engine rejection)


def check_expected_tools(
    expected: Sequence[str | ExpectedTool] | None,
    calls: Sequence[ToolInvocation],
    *,
    regex_timeout: float = 1.0,
) -> tuple[bool | None, list[ArgMatchDetail] | None]:
    """Grade a turn's `expected_tools` against the turn's calls.

    Returns `(tools_matched, arg_match_details)`: `(None, None)` when nothing is asserted,
    else whether every assertion passed and one detail per assertion, in YAML order.
    """
    if not expected:
        return None, None
    details = [_check_one(entry, calls, regex_timeout) for entry in expected]
    return all(detail.unmatched_reason is None for detail in details), details


def _check_one(
    entry: str | ExpectedTool, calls: Sequence[ToolInvocation], timeout: float
) -> ArgMatchDetail:
    if isinstance(entry, str):  # a bare name: called at least once, any arguments
        name, args, count = entry, None, 1
    else:
        name, args, count = entry.name, entry.args, entry.count
    asserted: _Asserted = tuple(args.items()) if args else ()

    candidates = [index for index, call in enumerate(calls) if name in call.name]
    matched: list[int] = []
    misses: list[_Miss] = []
    for index in candidates:
        miss = _check_call(asserted, calls[index].args, index, timeout)
        if miss is None:
            matched.append(index)
        else:
            misses.append(miss)

    reason = None
    if len(matched) < count:
        reason = _reason(name, count, len(matched), candidates, misses, calls)
    # Plain construction: pydantic-core validation is cheaper than model_construct here.
    return ArgMatchDetail(
        tool=name,
        args_asserted={key: dump_arg_matcher(matcher) for key, matcher in asserted}
        if args is not None
        else None,
        count=count,
        matched_calls=len(matched),
        matched_call_index=matched[0] if matched else None,
        unmatched_reason=reason,
    )


def _check_call(
    asserted: _Asserted, call_args: Mapping[str, Any], index: int, timeout: float
) -> _Miss | None:
    """None when the call satisfies every asserted arg; else its first failure.

    A failing call is checked to the end so its closeness (args satisfied) is known.
    """
    first: _Miss | None = None
    satisfied = 0
    for key, matcher in asserted:
        if key not in call_args:
            if first is None:
                first = _Miss(0, index, key, matcher, False, None, None)
            continue
        actual = call_args[key]
        error = None
        try:
            ok = matches(matcher, actual, regex_timeout=timeout)
        except RegexError as exc:
            ok, error = False, str(exc)
        if ok:
            satisfied += 1
        elif first is None:
            first = _Miss(0, index, key, matcher, True, actual, error)
    if first is None:
        return None
    return first._replace(matched_args=satisfied)


def _reason(
    name: str,
    count: int,
    found: int,
    candidates: Sequence[int],
    misses: Sequence[_Miss],
    calls: Sequence[ToolInvocation],
) -> str:
    if not candidates:
        return _not_called(name, calls)
    parts = []
    if count > 1 or found:
        parts.append(f"{count} matching calls required, {found} found")
    if misses:
        closest = _closest(misses)
        text = _arg_reason(closest)
        if len(candidates) > 1:
            text += f" (closest of {len(candidates)} calls, index {closest.call_index})"
        parts.append(text)
        refused = refused_call(calls[closest.call_index])
        if refused:
            parts.append(refused)
    return "; ".join(parts)


def _closest(misses: Sequence[_Miss]) -> _Miss:
    # max() keeps the first of equals, so ties go to the earliest call.
    return max(misses, key=lambda miss: miss.matched_args)


def _arg_reason(miss: _Miss) -> str:
    if not miss.present:
        return f"arg '{miss.key}' missing"
    text = f"arg '{miss.key}' mismatch: {describe_mismatch(miss.matcher, miss.actual)}"
    if miss.error is not None:
        text += f" ({miss.error})"
    return text


def _not_called(name: str, calls: Sequence[ToolInvocation]) -> str:
    if not calls:
        return f"tool '{name}' was not called (no tool calls this turn)"
    # Distinct, in call order; a name no tool has is marked, so a format token that leaked
    # into it (`ls<|channel|>commentary`) reads as the model's slip, not a missing tool.
    names = list(
        dict.fromkeys(
            call.name + (" (unknown tool)" if call.call_problem == "unknown_tool" else "")
            for call in calls
        )
    )
    listed = ", ".join(names[:_LISTED_NAMES])
    if len(names) > _LISTED_NAMES:
        listed += f", … ({len(names) - _LISTED_NAMES} more)"
    return f"tool '{name}' was not called (calls this turn: {listed})"
