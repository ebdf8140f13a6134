"""One traced run: the span tree of docs/observability.md, "What a run sends" — a run span;
a case span per case session (`gen_ai.conversation.id`); per turn a turn span holding the
`invoke_agent` span of the send (its `chat` and `execute_tool` spans under it), the judges'
`chat` spans and the `gen_ai.evaluation.result` events of the turn's verdicts.

Fed by the hooks (hooks.py: the send, the judges, every model call) and by the run's progress
events (progress.py: cases starting, turns graded, cases finished). Imports OpenTelemetry:
only session.py imports this module, and only when the run is traced.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from holodeck_lsp.runner.execution.events import CaseKey, CaseRef
from holodeck_lsp.runner.tracing import genai
from holodeck_lsp.runner.tracing.evaluation_events import (
    case_status,
    evaluation_events,
    turn_status,
)
from holodeck_lsp.runner.tracing.settings import TraceSettings
from holodeck_lsp.runner.tracing.tool_spans import add_tool_spans
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import TestReport, TestResult, TurnResult

#: "judge" while a turn's judges are called: their model calls say so.
_ROLE: ContextVar[str] = ContextVar("holodeck_call_role", default="agent")


@dataclass(slots=True)
class _Turn:
    span: Span
    invoke: Span | None = None
    sent_ns: int | None = None
    #: (start, end) of the agent's model calls during the send, in nanoseconds.
    chats: list[tuple[int, int]] = field(default_factory=list)


class OtelRunTrace:
    def __init__(
        self,
        provider: TracerProvider,
        settings: TraceSettings,
        agent: Agent,
        env: Mapping[str, str],
    ) -> None:
        from holodeck_lsp import __version__

        self._provider = provider
        self._tracer = provider.get_tracer("holodeck_lsp", __version__, schema_url=genai.SCHEMA_URL)
        self.settings = settings
        opt_in = env.get("OTEL_SEMCONV_STABILITY_OPT_IN", "")
        self.latest = genai.LATEST_OPT_IN in [part.strip() for part in opt_in.split(",")]
        self._agent = agent
        self._run: Span | None = None
        self._cases: dict[CaseKey, tuple[Span, str]] = {}
        self._turns: dict[tuple[CaseKey, int], _Turn] = {}
        self._by_invoke: dict[int, _Turn] = {}
        self._lock = threading.Lock()

    # -- the run -----------------------------------------------------------------------------

    @contextlib.contextmanager
    def running(self, attributes: Mapping[str, Any]) -> Iterator[None]:
        from holodeck_lsp.runner.trace_hooks import tracing_run

        self._run = self._tracer.start_span(
            "holodeck.run", kind=SpanKind.INTERNAL, attributes=dict(attributes)
        )
        with trace.use_span(self._run, end_on_exit=False), tracing_run(self):
            yield

    def finish(self, report: TestReport | None, error: str | None = None) -> None:
        """End what is still open (a cancelled run's cases), the run span, and send it all."""
        end = time.time_ns()
        for key in list(self._turns):
            turn = self._turns.pop(key)
            if turn.invoke is not None:
                turn.invoke.end(end_time=turn.sent_ns or end)
            turn.span.set_status(Status(StatusCode.ERROR, "not finished"))
            turn.span.end(end_time=end)
        for span, _conversation in self._cases.values():
            span.set_status(Status(StatusCode.ERROR, "not finished"))
            span.end(end_time=end)
        self._cases.clear()
        run = self._run
        if run is not None:
            if report is not None:
                summary = report.summary
                run.set_attributes(
                    {
                        "holodeck.run.passed": summary.passed,
                        "holodeck.run.failed": summary.failed,
                        "holodeck.run.errored": summary.errored,
                        "holodeck.run.not_run": summary.not_run,
                    }
                )
                if report.run_id:
                    run.set_attribute("holodeck.run.id", report.run_id)
            if error is not None:
                run.set_status(Status(StatusCode.ERROR, error))
            run.end()
        self._provider.force_flush()

    # -- cases and turns (progress events) ---------------------------------------------------

    def case_started(self, ref: CaseRef) -> None:
        parent = trace.set_span_in_context(self._run) if self._run is not None else None
        conversation = uuid.uuid4().hex
        attributes: dict[str, Any] = {
            genai.CONVERSATION_ID: conversation,
            genai.CASE_NAME: ref.label,
            genai.CASE_INDEX: ref.index,
            "holodeck.case.turns": ref.turns,
        }
        if ref.model is not None:
            attributes[genai.CASE_MODEL] = ref.model
        if ref.repeat is not None:
            attributes[genai.CASE_REPEAT] = ref.repeat
        span = self._tracer.start_span(
            f"holodeck.case {ref.work_label}", context=parent, attributes=attributes
        )
        with self._lock:
            self._cases[ref.key] = (span, conversation)

    def turn_finished(self, ref: CaseRef, result: TurnResult) -> None:
        with self._lock:
            turn = self._turns.pop((ref.key, result.turn_index), None)
        if turn is None:  # never sent: skipped, or its case could not start
            turn = self._open_turn(ref, result.turn_index)
        if turn.invoke is not None:
            self._end_invoke(turn, result)
        for name, attributes in evaluation_events(result, self.settings):
            turn.span.add_event(name, attributes)
        status, error_type = turn_status(result)
        if error_type is not None:
            turn.span.set_attribute(genai.ERROR_TYPE, error_type)
        turn.span.set_status(status)
        turn.span.set_attribute("holodeck.turn.passed", result.passed)
        turn.span.end()

    def case_finished(self, ref: CaseRef, result: TestResult) -> None:
        with self._lock:
            opened = self._cases.pop(ref.key, None)
            # Turns sent as context of `--turn N` are never graded: they end with the case.
            context = [key for key in self._turns if key[0] == ref.key]
            context_turns = [self._turns.pop(key) for key in context]
        for turn in context_turns:
            if turn.invoke is not None:
                with self._lock:
                    self._by_invoke.pop(turn.invoke.get_span_context().span_id, None)
                turn.invoke.end(end_time=turn.sent_ns)
            turn.span.set_attribute("holodeck.turn.context", True)
            turn.span.end(end_time=turn.sent_ns)
        if opened is None:
            return
        span, _conversation = opened
        span.set_attribute("holodeck.case.passed", result.passed)
        status, error_type = case_status(result)
        if error_type is not None:
            span.set_attribute(genai.ERROR_TYPE, error_type)
        span.set_status(status)
        span.end()

    # -- hooks -------------------------------------------------------------------------------

    @contextlib.contextmanager
    def sending(self, ref: CaseRef, turn_index: int) -> Iterator[None]:
        turn = self._open_turn(ref, turn_index)
        provider, model = self._model_of(ref)
        attributes: dict[str, Any] = {
            genai.OPERATION: "invoke_agent",
            genai.PROVIDER: provider,
            genai.AGENT_NAME: self._agent.name,
            genai.REQUEST_MODEL: model,
            genai.TURN_INDEX: turn_index,
        }
        conversation = self._conversation(ref)
        if conversation is not None:
            attributes[genai.CONVERSATION_ID] = conversation
        if not self.latest:
            attributes[genai.SYSTEM_OLD] = provider
        invoke = self._tracer.start_span(
            f"invoke_agent {self._agent.name}",
            context=trace.set_span_in_context(turn.span),
            kind=SpanKind.CLIENT,
            attributes=attributes,
        )
        turn.invoke = invoke
        with self._lock:
            self._by_invoke[invoke.get_span_context().span_id] = turn
        try:
            with trace.use_span(invoke, end_on_exit=False):
                yield
        finally:
            turn.sent_ns = time.time_ns()

    @contextlib.contextmanager
    def judging(self, ref: CaseRef, turn_index: int) -> Iterator[None]:
        with self._lock:
            turn = self._turns.get((ref.key, turn_index))
        role = _ROLE.set("judge")
        try:
            if turn is None:
                yield
            else:
                with trace.use_span(turn.span, end_on_exit=False):
                    yield
        finally:
            _ROLE.reset(role)

    def capture(self) -> Any:
        return otel_context.get_current()

    def model_call(self, url: str, body: bytes, parent: Any = None) -> _ModelCall:
        from holodeck_lsp.runner.tracing.model_calls import start_model_call

        ctx = parent if parent is not None else otel_context.get_current()
        return start_model_call(self, self._tracer, url, body, ctx, _ROLE.get())

    def chat_ended(self, parent_span_id: int, start: int, end: int) -> None:
        """A model call under an `invoke_agent` span: where its tool calls are placed."""
        with self._lock:
            turn = self._by_invoke.get(parent_span_id)
            if turn is not None:
                turn.chats.append((start, end))

    # -- helpers -----------------------------------------------------------------------------

    def _open_turn(self, ref: CaseRef, turn_index: int) -> _Turn:
        with self._lock:
            known = self._turns.get((ref.key, turn_index))
            if known is not None:
                return known
            case = self._cases.get(ref.key)
        parent_span = case[0] if case is not None else self._run
        parent = trace.set_span_in_context(parent_span) if parent_span is not None else None
        attributes: dict[str, Any] = {genai.TURN_INDEX: turn_index, genai.CASE_NAME: ref.label}
        if ref.model is not None:
            attributes[genai.CASE_MODEL] = ref.model
        if ref.repeat is not None:
            attributes[genai.CASE_REPEAT] = ref.repeat
        if case is not None:
            attributes[genai.CONVERSATION_ID] = case[1]
        span = self._tracer.start_span(
            f"holodeck.turn {turn_index}", context=parent, attributes=attributes
        )
        turn = _Turn(span)
        with self._lock:
            self._turns[(ref.key, turn_index)] = turn
        return turn

    def _end_invoke(self, turn: _Turn, result: TurnResult) -> None:
        invoke = turn.invoke
        assert invoke is not None
        with self._lock:
            self._by_invoke.pop(invoke.get_span_context().span_id, None)
        usage = result.token_usage
        if usage is not None:
            invoke.set_attribute(genai.INPUT_TOKENS, usage.prompt_tokens)
            invoke.set_attribute(genai.OUTPUT_TOKENS, usage.completion_tokens)
        if self.settings.capture_content:
            from holodeck_lsp.runner.tracing.content import input_messages, output_messages

            invoke.set_attribute(genai.INPUT_MESSAGES, input_messages(result.input))
            if result.response is not None:
                invoke.set_attribute(genai.OUTPUT_MESSAGES, output_messages(result.response))
        end = turn.sent_ns or time.time_ns()
        add_tool_spans(self._tracer, invoke, result, turn.chats, end, self.settings.capture_content)
        if result.errored or (result.response is None and result.errors):
            invoke.set_attribute(genai.ERROR_TYPE, "provider_error" if result.errored else "error")
            invoke.set_status(Status(StatusCode.ERROR, result.errors[0] if result.errors else ""))
        invoke.end(end_time=end)

    def _conversation(self, ref: CaseRef) -> str | None:
        with self._lock:
            case = self._cases.get(ref.key)
        return case[1] if case is not None else None

    def _model_of(self, ref: CaseRef) -> tuple[str, str]:
        if ref.model is not None and ":" in ref.model:
            provider, _, name = ref.model.partition(":")
            return genai.PROVIDER_NAMES.get(provider, provider), name
        model = self._agent.model
        value = model.provider.value
        return genai.PROVIDER_NAMES.get(value, value), model.name


_ModelCall = Any
