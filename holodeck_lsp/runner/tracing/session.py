"""A run's trace, or None: what run_session.py calls (docs/observability.md). Loads the
OpenTelemetry SDK only when the run is traced, and says how to install it when it is
missing."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from holodeck_lsp.runner.execution.events import ProgressSink
from holodeck_lsp.runner.run_request import RunCannotStart
from holodeck_lsp.runner.secrets import Redactor
from holodeck_lsp.runner.tracing.settings import trace_settings
from holodeck_lsp.schema.agent import Agent

if TYPE_CHECKING:
    from holodeck_lsp.runner.tracing.run_trace import OtelRunTrace
    from holodeck_lsp.schema.results import TestReport

MISSING_SDK = (
    "tracing is on (`observability:` in the agent file, or --trace) but the OpenTelemetry "
    "SDK is not installed: install the `tracing` extra (pip install 'holodeck-lsp[tracing]') "
    "or run with --no-trace"
)


class RunTracing:
    """The trace of one run: wrap its progress sink, run inside `active`, then `close`."""

    def __init__(self, trace: OtelRunTrace, attributes: dict[str, Any]) -> None:
        self.trace = trace
        self._attributes = attributes

    def progress(self, sink: ProgressSink | None) -> ProgressSink:
        from holodeck_lsp.runner.tracing.progress import TracedProgress

        return TracedProgress(self.trace, sink)

    def active(self) -> Any:
        return self.trace.running(self._attributes)

    def close(self, report: TestReport | None, error: str | None = None) -> None:
        self.trace.finish(report, error)


def open_tracing(
    agent: Agent,
    flag: bool | None,
    env: Mapping[str, str],
    redactor: Redactor,
    run: Mapping[str, Any],
    models: Sequence[str] = (),
) -> RunTracing | None:
    """None when the run is not traced. Raises `RunCannotStart` without the SDK."""
    settings = trace_settings(agent, flag, env)
    if settings is None:
        return None
    try:
        from holodeck_lsp.runner.tracing.provider import provider_for
        from holodeck_lsp.runner.tracing.run_trace import OtelRunTrace
    except ImportError:
        raise RunCannotStart(MISSING_SDK) from None
    provider = provider_for(settings, redactor)
    trace = OtelRunTrace(provider, settings, agent, env)
    attributes: dict[str, Any] = {"holodeck.agent.name": agent.name}
    attributes.update({f"holodeck.run.{key}": value for key, value in run.items()})
    if models:
        attributes["holodeck.run.models"] = list(models)
    return RunTracing(trace, attributes)


def traced_progress(tracing: RunTracing | None, sink: ProgressSink | None) -> ProgressSink | None:
    """`sink`, seen by the run's trace first when there is one."""
    return sink if tracing is None else tracing.progress(sink)


def tracing_active(tracing: RunTracing | None) -> contextlib.AbstractContextManager[Any]:
    """The run span and the hooks' tracer, for the length of the block."""
    return contextlib.nullcontext() if tracing is None else tracing.active()


def close_tracing(tracing: RunTracing | None, report: TestReport | None) -> None:
    """End the run's spans and send them (a run that crashed: with an error status)."""
    if tracing is not None:
        tracing.close(report, None if report is not None else "the run did not finish")
