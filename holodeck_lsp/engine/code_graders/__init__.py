"""`type: code` metrics: calling a user's grader on one turn and recording what it returned.

The contract (docs/grading.md#code-graders): a grader is a plain synchronous callable that
takes one `GraderContext` and returns a `GraderResult`, a bare `bool` or a bare number. Whatever
goes wrong inside the grader (an exception, a wrong return value, a hang) fails that turn's
metric only, with the reason in `MetricResult.error`; it never stops the run — unless
the metric sets `fail_on_error: true`: then a grader that raises (or times out) stops its case,
as upstream's does (`stops_the_case`; the case runner skips the remaining turns).

Graders written for upstream HoloDeck run unchanged: a result is read by its fields (`score`,
`passed`, `reason`, `details`), so upstream's own `GraderResult` type is accepted as ours is,
and the context has upstream's attribute names.

Trust model. Graders are user Python code that runs in this process with its full privileges:
no sandbox. Running a suite means trusting its graders, exactly like trusting its tool plugins.
What we do guarantee is that a *well-behaved* grader cannot change the run by accident: the
context holds deep copies, frozen where Python allows, so a grader cannot alter the session, the
stored results or what later turns see (a determined grader can still reach anything in the
process, e.g. through `gc`; that is the trust model above, not a bug).

Time limit. A grader runs in a daemon worker thread and we stop waiting after `timeout`
seconds. Python cannot kill a thread: a grader that never returns keeps running in the
background (and keeps its CPU and memory) until it finishes or the process exits; its result is
discarded. Being a daemon thread, it does not keep the process alive at exit.

Loading. This module never imports user code: it is handed the grader callable. Finding and
importing `module:callable` (sys.path, import cache, same-name check) is the runner's job
(`runner.agent_code.grader_import`), as is reading the time limit from the environment.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from holodeck_lsp.engine.code_graders.frozen import (
    FrozenDict,
    FrozenList,
    FrozenToolInvocation,
    freeze,
)
from holodeck_lsp.engine.code_graders.returned_value import (
    DEFAULT_THRESHOLD,
    GraderContractError,
    lift,
)
from holodeck_lsp.engine.code_graders.timed_call import call_with_timeout
from holodeck_lsp.schema.metrics import CodeMetric
from holodeck_lsp.schema.results import MetricResult, ToolInvocation

__all__ = [
    "DEFAULT_GRADER_TIMEOUT",
    "DEFAULT_THRESHOLD",
    "FrozenDict",
    "FrozenList",
    "FrozenToolInvocation",
    "GraderContext",
    "GraderResult",
    "run_code_grader",
    "stops_the_case",
]

#: Seconds a grader may run unless the caller says otherwise (the runner reads
#: `HOLODECK_GRADER_TIMEOUT`, see `runner.agent_code.grader_loading.default_grader_timeout`).
DEFAULT_GRADER_TIMEOUT = 30.0


@dataclass(frozen=True, slots=True)
class GraderContext:
    """Everything a grader sees of one turn. Read-only: the constructor stores frozen deep
    copies of what it is given, so a grader cannot change the caller's objects.

    * `turn_input`, `agent_response`, `ground_truth`: the turn's prompt, the agent's answer
      (empty if there was none) and the expected answer, if the turn has one.
    * `tool_invocations`: the turn's tool calls in call order, as `FrozenToolInvocation`s
      (`ToolInvocation`s that cannot be changed; `args` is a read-only dict).
    * `retrieval_context`: the turn's RAG context, if any.
    * `turn_index`: 0-based; a single-turn case is turn 0.
    * `test_case_name`: the case's `name:`, if it has one.
    * `earlier_tool_invocations` (holodeck-lsp only): each earlier turn's tool calls.
    * `tool_limit_reached` (holodeck-lsp only): the tool-round limit (`max_tool_rounds`) the
      turn was stopped at, or None.
    * `turn_config`: the turn's raw configuration (grader-specific keys included), as a
      `FrozenDict`; nested mappings are `FrozenDict`s and lists `FrozenList`s (read-only
      subclasses of dict and list, so they compare equal to plain data and `json.dumps`).

    These are upstream HoloDeck's `GraderContext` fields, by the same names and in the same
    order, and each tool invocation also has upstream's `bytes`: a grader written for
    HoloDeck reads the same attributes here.
    """

    turn_input: str
    agent_response: str
    ground_truth: str | None
    tool_invocations: tuple[ToolInvocation, ...]
    retrieval_context: tuple[str, ...] | None
    turn_index: int
    test_case_name: str | None
    turn_config: Mapping[str, Any]
    #: holodeck-lsp's addition after upstream's fields: the tool calls of the case's earlier
    #: turns, turn by turn (empty on turn 0), for graders that replay the whole conversation.
    earlier_tool_invocations: tuple[tuple[ToolInvocation, ...], ...] = ()
    tool_limit_reached: int | None = None

    def __post_init__(self) -> None:
        invocations = tuple(freeze(call) for call in self.tool_invocations)
        object.__setattr__(self, "tool_invocations", invocations)
        earlier = tuple(
            tuple(freeze(call) for call in turn) for turn in self.earlier_tool_invocations
        )
        object.__setattr__(self, "earlier_tool_invocations", earlier)
        if self.retrieval_context is not None:
            object.__setattr__(self, "retrieval_context", tuple(self.retrieval_context))
        # A FrozenDict, not a MappingProxyType: upstream hands graders a `dict`, and graders
        # written for it may check `isinstance(ctx.turn_config, dict)`.
        config = {str(key): freeze(value) for key, value in dict(self.turn_config).items()}
        object.__setattr__(self, "turn_config", FrozenDict(config))


@dataclass(slots=True)
class GraderResult:
    """What a grader returns: `score` in [0, 1]; `passed` (None: `score >= threshold`, the
    threshold being the metric's or 0.5); an optional human `reason`; optional JSON-serialisable
    `details` that the report keeps next to the score."""

    score: float
    passed: bool | None = None
    reason: str | None = None
    details: dict[str, Any] | None = None


def run_code_grader(
    grader: Callable[[GraderContext], object],
    metric: CodeMetric,
    context: GraderContext,
    *,
    timeout: float,
) -> MetricResult:
    """Call `grader(context)` with a time limit and turn what it did into a `MetricResult`
    (kind "code", named `metric.display_name`). Never raises for anything the grader does.

    `timeout` is in seconds (`math.inf` waits for ever). A grader still running then is left
    running in its daemon thread and its eventual result is discarded (see the module doc).
    """
    if not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    threshold = metric.threshold
    if not metric.enabled:
        return MetricResult(
            metric_name=metric.display_name,
            kind="code",
            threshold=threshold,
            skipped=True,
            reasoning="disabled",
        )
    label = f"grader '{metric.grader}'"
    started = time.perf_counter()
    try:
        returned = call_with_timeout(grader, context, timeout, label)
        score, passed, reason, details = lift(returned, threshold, label)
    except GraderContractError as exc:
        return MetricResult(
            metric_name=metric.display_name,
            kind="code",
            score=0.0,
            threshold=threshold,
            passed=False,
            error=str(exc),
            evaluation_time_ms=_elapsed_ms(started),
        )
    return MetricResult(
        metric_name=metric.display_name,
        kind="code",
        score=score,
        threshold=threshold,
        passed=passed,
        reasoning=reason,
        evaluation_time_ms=_elapsed_ms(started),
        details=details,
    )


def stops_the_case(metric: CodeMetric, result: MetricResult) -> bool:
    """Whether `result` (of `metric`, from `run_code_grader`) is a grader that raised or
    timed out under `fail_on_error: true`: upstream then stops the case at this turn. A
    failing score or a malformed return value does not stop it (nor does it upstream)."""
    if not metric.fail_on_error or result.error is None:
        return False
    label = f"grader '{metric.grader}'"
    return result.error.startswith((f"{label} raised ", f"{label} timed out "))


def _elapsed_ms(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)
