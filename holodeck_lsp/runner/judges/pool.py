"""The run's judges: one client per judge model, at most `concurrency` judge calls at
once across the whole run, and where verdicts come from.

* `LIVE` — ask the judge (a live run, or `--replay --rejudge`); verdicts are kept so a
  recording run writes them into the cassette next to the turn they graded.
* `REPLAY` — the cassette's recorded verdict for the same judge input; none for this
  input means the recording is stale (the metric fails and says so), never a live call.
* `OFFLINE` — re-grading in the editor: a recorded verdict for the same input, else the
  metric is skipped as needing a run. Never calls a model.

Every text the judge sees has the run's secrets masked first (`mask`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import time
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from holodeck_lsp.engine.evaluators.judges import JudgedMetric, JudgeRequest, JudgeVerdict
from holodeck_lsp.engine.judging import Judging
from holodeck_lsp.runner.cassette import (
    CassetteJudgement,
    RecordedJudgements,
    cassette_usage,
)
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.judge_model import judge_label, judge_model_of
from holodeck_lsp.schema.llm import LLMProvider
from holodeck_lsp.schema.metrics import StandardMetric
from holodeck_lsp.schema.results import TokenUsage

if TYPE_CHECKING:
    from holodeck_lsp.runner.judges.transport import JudgeTransport, Reply

#: Judge calls in flight at once when nothing says otherwise.
DEFAULT_CONCURRENCY = 8
CONCURRENCY_ENV = "HOLODECK_JUDGE_CONCURRENCY"
#: Seconds one judge call may take without `timeout_ms` (upstream's evaluator default).
DEFAULT_TIMEOUT = 60.0

STALE = (
    "judge recording is stale: what the judge sees changed since it was recorded "
    "(criteria, steps, response or context); run with --rejudge to judge it again"
)
MISSING = (
    "no judge recording for this metric on this turn; run with --rejudge (or record the "
    "cassette again)"
)
NEEDS_RUN = (
    "needs a run: no judge recording for this input (the judged metric is graded when the "
    "suite runs; typing never calls a model)"
)


class JudgeMode(StrEnum):
    LIVE = "live"
    REPLAY = "replay"
    OFFLINE = "offline"


def resolve_concurrency(value: int | None, env: Mapping[str, str]) -> int:
    """The run's limit: the caller's value, else $HOLODECK_JUDGE_CONCURRENCY, else 8."""
    if value is not None:
        return max(1, value)
    raw = env.get(CONCURRENCY_ENV, "").strip()
    return int(raw) if raw.isdigit() and int(raw) >= 1 else DEFAULT_CONCURRENCY


def _identity(text: str) -> str:
    return text


class JudgePool:
    def __init__(
        self,
        agent: Agent,
        mode: JudgeMode,
        *,
        env: Mapping[str, str] | None = None,
        concurrency: int | None = None,
        recorded: RecordedJudgements | None = None,
        mask: Callable[[str], str] | None = None,
    ) -> None:
        self.agent = agent
        self.mode = mode
        self._env = os.environ if env is None else env
        self.concurrency = resolve_concurrency(concurrency, self._env)
        self._gate = asyncio.Semaphore(self.concurrency)
        self._recorded = recorded
        self._mask = mask or _identity
        self._models: dict[str, LLMProvider] = {}
        self._transports: dict[str, JudgeTransport] = {}
        #: Live verdicts by (case index, turn index), for the recording.
        self.made: dict[tuple[int, int], list[CassetteJudgement]] = {}

    @property
    def env(self) -> Mapping[str, str]:
        """The run's environment (a simulated user's model reads its key from it)."""
        return self._env

    # -- what grading needs ------------------------------------------------------------------

    def model_of(self, metric: JudgedMetric) -> str | None:
        model = judge_model_of(metric, self.agent)
        if model is None:
            return None
        label = judge_label(model)
        self._models.setdefault(label, model)
        return label

    def judging(self, verdicts: Mapping[str, JudgeVerdict] | None = None) -> Judging:
        return Judging(model_of=self.model_of, verdicts=dict(verdicts or {}))

    async def verdicts(
        self,
        case_name: str | None,
        case_index: int,
        turn_index: int,
        requests: Sequence[JudgeRequest],
    ) -> dict[str, JudgeVerdict]:
        """A verdict for every request of one turn (judged concurrently)."""
        unique = {request.key: request for request in requests}
        if self.mode is not JudgeMode.LIVE:
            recorded = (
                self._recorded.of_turn(case_name, case_index, turn_index)
                if self._recorded is not None
                else []
            )
            return {key: self._from_recording(r, recorded) for key, r in unique.items()}
        keys = list(unique)
        answers = await asyncio.gather(*(self._judge(unique[key]) for key in keys))
        verdicts = dict(zip(keys, answers, strict=True))
        made = self.made.setdefault((case_index, turn_index), [])
        made += [_judgement(unique[key], verdicts[key]) for key in keys]
        return verdicts

    def prepare(self, metrics: Sequence[JudgedMetric]) -> None:
        """Before the run (RunSession.open, which may block): import deepeval now when a
        live run will need it, so its seconds of import do not stall the first judgements.
        Not installed: nothing to do (each such metric fails saying how to install it)."""
        if self.mode is not JudgeMode.LIVE:
            return
        if not any(not isinstance(m, StandardMetric) for m in metrics):
            return
        from holodeck_lsp.runner.judges import deepeval_judge
        from holodeck_lsp.runner.judges.transport import JudgeCallError

        if deepeval_judge.available():
            with contextlib.suppress(JudgeCallError):
                deepeval_judge.prepare()

    # -- recordings --------------------------------------------------------------------------

    def _from_recording(
        self, request: JudgeRequest, recorded: list[CassetteJudgement]
    ) -> JudgeVerdict:
        for judgement in recorded:
            if judgement.input == request.key:
                return _verdict_of(judgement)
        if self.mode is JudgeMode.OFFLINE:
            return JudgeVerdict(skip=NEEDS_RUN)
        if any(j.metric == request.metric for j in recorded):
            return JudgeVerdict(stale=STALE)
        return JudgeVerdict(stale=MISSING)

    # -- live judging ------------------------------------------------------------------------

    def _transport(self, label: str) -> JudgeTransport:
        from holodeck_lsp.runner.judges.transport import JudgeTransport

        transport = self._transports.get(label)
        if transport is None:
            transport = JudgeTransport(self._models[label], self._env)
            self._transports[label] = transport
        return transport

    def _masked(self, request: JudgeRequest) -> JudgeRequest:
        mask = self._mask

        def many(values: tuple[str, ...] | None) -> tuple[str, ...] | None:
            return tuple(mask(v) for v in values) if values is not None else None

        return dataclasses.replace(
            request,
            input=mask(request.input) if request.input is not None else None,
            actual_output=mask(request.actual_output),
            expected_output=mask(request.expected_output)
            if request.expected_output is not None
            else None,
            retrieval_context=many(request.retrieval_context),
            criteria=mask(request.criteria) if request.criteria is not None else None,
            evaluation_steps=many(request.evaluation_steps),
            custom_prompt=mask(request.custom_prompt) if request.custom_prompt else None,
        )

    async def _judge(self, request: JudgeRequest) -> JudgeVerdict:
        try:
            from holodeck_lsp.runner.judges.transport import (
                JudgeCallError,
                JudgeConfigError,
                JudgeProviderError,
            )
        except ImportError as missing:  # httpx: brought by every backend extra and `judges`
            return JudgeVerdict(
                error=f"LLM judges need {missing.name}: pip install 'holodeck-lsp[judges]'",
                model=request.model,
            )

        started = time.perf_counter()
        replies: list[Reply] = []
        timeout = request.timeout or DEFAULT_TIMEOUT
        try:
            transport = self._transport(request.model)
        except JudgeConfigError as config_error:
            return JudgeVerdict(error=str(config_error), model=request.model)

        async def complete(prompt: str, schema: dict[str, Any] | None, name: str) -> Reply:
            async with self._gate:
                reply = await transport.complete(prompt, schema, name, timeout)
            replies.append(reply)
            return reply

        masked = self._masked(request)
        error: str | None = None
        errored = False
        score: float | None = None
        reason: str | None = None
        for _attempt in range(1 + max(0, request.retries)):
            try:
                score, reason = await _grade(masked, complete, request.model)
                error = None
                break
            except JudgeCallError as failure:
                error = str(failure)
                # The last attempt decides: the provider's weather, or the judge's answer.
                errored = isinstance(failure, JudgeProviderError)
            except Exception as crash:  # a bug judging one metric fails that metric only
                error = f"judging failed: {type(crash).__name__}: {crash}"
                break
        return JudgeVerdict(
            score=score if error is None else None,
            reason=reason,
            error=error,
            errored=errored and error is not None,
            model=request.model,
            tokens=_total(replies),
            latency_ms=round((time.perf_counter() - started) * 1000),
            calls=len(replies),
        )

    async def aclose(self) -> None:
        for transport in self._transports.values():
            await transport.aclose()
        self._transports.clear()


async def _grade(
    request: JudgeRequest,
    complete: Callable[[str, dict[str, Any] | None, str], Any],
    label: str,
) -> tuple[float, str | None]:
    from holodeck_lsp.runner.judges import standard_judge
    from holodeck_lsp.runner.judges.transport import JudgeCallError

    if request.kind == "standard":
        reply = await complete(
            standard_judge.prompt(request), standard_judge.SCHEMA, standard_judge.SCHEMA_NAME
        )
        try:
            return standard_judge.parse(reply.text)
        except ValueError as error:
            raise JudgeCallError(f"the judge {label}: {error}") from None
    from holodeck_lsp.runner.judges.deepeval_judge import judge_with_deepeval

    score, reason, _ = await judge_with_deepeval(request, complete, label)
    return score, reason


def _total(replies: list[Reply]) -> TokenUsage | None:
    if not replies:
        return None
    total = TokenUsage()
    for reply in replies:
        total = total + reply.usage
    return total


def _judgement(request: JudgeRequest, verdict: JudgeVerdict) -> CassetteJudgement:
    return CassetteJudgement(
        metric=request.metric,
        kind=request.kind,
        input=request.key,
        model=verdict.model or request.model,
        score=verdict.score,
        reason=verdict.reason,
        error=verdict.error,
        errored=verdict.errored,
        token_usage=cassette_usage(verdict.tokens),
        latency_ms=verdict.latency_ms,
        calls=verdict.calls,
    )


def _verdict_of(judgement: CassetteJudgement) -> JudgeVerdict:
    usage = judgement.token_usage
    return JudgeVerdict(
        score=judgement.score,
        reason=judgement.reason,
        error=judgement.error,
        errored=judgement.errored,
        model=judgement.model,
        tokens=TokenUsage(
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            total_tokens=usage.total_tokens,
        )
        if usage is not None
        else None,
        latency_ms=judgement.latency_ms,
        calls=judgement.calls,
    )
