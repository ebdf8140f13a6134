"""Whether a run is traced and where its spans go (runner/tracing/settings.py): the flag, the
`observability:` block with upstream's meaning of its fields, the standard `OTEL_*` variables
(docs/observability.md, "Turning tracing on"); and the evaluation events and error statuses
a graded turn becomes (runner/tracing/evaluation_events.py)."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from opentelemetry.trace import StatusCode

from holodeck_lsp.runner.tracing.evaluation_events import evaluation_events, turn_status
from holodeck_lsp.runner.tracing.settings import ExporterSpec, trace_settings
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import MetricResult, TurnResult


def agent(observability: dict[str, Any] | None = None) -> Agent:
    data: dict[str, Any] = {
        "name": "calc",
        "model": {"provider": "openai", "name": "gpt-4o-mini"},
        "instructions": {"inline": "Answer."},
        "test_cases": [{"input": "1+1?"}],
    }
    if observability is not None:
        data["observability"] = observability
    return Agent.model_validate(data)


def test_the_flag_and_the_block_decide() -> None:
    assert trace_settings(agent(), None, {}) is None
    assert trace_settings(agent({"enabled": False}), None, {}) is None
    assert trace_settings(agent({"enabled": True, "traces": {"enabled": False}}), None, {}) is None
    assert trace_settings(agent({"enabled": True}), False, {}) is None
    forced = trace_settings(agent(), True, {})
    assert forced is not None and forced.exporters == (ExporterSpec(kind="console"),)
    assert forced.service_name == "holodeck-calc"


def test_the_block_keeps_upstreams_meaning_and_the_environment_fills_the_rest() -> None:
    block = {
        "enabled": True,
        "service_name": "evals",
        "resource_attributes": {"team": "a"},
        "traces": {"sample_rate": 0.5, "max_queue_size": 100, "max_export_batch_size": 10},
        "exporters": {"otlp": {"endpoint": "http://localhost:4317", "protocol": "http"}},
    }
    env = {"OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=abc%20d", "OTEL_SERVICE_NAME": "ignored"}
    settings = trace_settings(agent(block), None, env)
    assert settings is not None
    assert settings.service_name == "evals"
    assert settings.resource_attributes == (("team", "a"),)
    assert (settings.sample_rate, settings.max_queue_size, settings.max_export_batch_size) == (
        0.5,
        100,
        10,
    )
    [otlp] = settings.exporters
    # Upstream's rule: a localhost endpoint on the gRPC port, spoken to over HTTP, moves to 4318.
    assert otlp.endpoint == "http://localhost:4318" and otlp.protocol == "http"
    assert otlp.headers == (("x-api-key", "abc d"),)


def test_the_standard_variables_alone_configure_the_exporter() -> None:
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector.example:4318",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        "OTEL_EXPORTER_OTLP_TIMEOUT": "2500",
        "OTEL_SERVICE_NAME": "from-env",
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true",
    }
    settings = trace_settings(agent(), True, env)
    assert settings is not None
    [otlp] = settings.exporters
    assert (otlp.endpoint, otlp.protocol, otlp.timeout_s) == (
        "https://collector.example:4318",
        "http",
        2.5,
    )
    assert settings.service_name == "from-env" and settings.capture_content
    with_console = trace_settings(
        agent({"enabled": True, "exporters": {"console": {"enabled": True}}}), None, env
    )
    assert with_console is not None
    assert [spec.kind for spec in with_console.exporters] == ["otlp", "console"]


def test_skipped_errored_and_failed_turns_become_labels_and_statuses() -> None:
    settings = trace_settings(agent(), True, {})
    assert settings is not None
    skipped = TurnResult(turn_index=1, input="x", skipped=True, errors=["cancelled"])
    errored = TurnResult(turn_index=0, input="x", errored=True, errors=["HTTP 503"])
    metric = MetricResult(metric_name="numeric", score=0.0, passed=False, reasoning="off by 1")
    failed = TurnResult(turn_index=0, input="x", response="3", metric_results=[metric])
    assert turn_status(skipped)[0].status_code == StatusCode.ERROR
    assert turn_status(skipped)[1] == "skipped"
    assert turn_status(errored)[1] == "provider_error"
    assert turn_status(failed)[0].status_code == StatusCode.UNSET
    events = {a["gen_ai.evaluation.name"]: a for _, a in evaluation_events(failed, settings)}
    assert events["numeric"]["gen_ai.evaluation.score.label"] == "failed"
    assert events["numeric"]["gen_ai.evaluation.explanation"] == "off by 1"
    assert events["turn_verdict"]["gen_ai.evaluation.score.value"] == 0.0
    [(_, verdict)] = evaluation_events(skipped, settings)
    assert verdict["gen_ai.evaluation.score.label"] == "skipped"
    assert "gen_ai.evaluation.score.value" not in verdict


def test_tracing_without_the_sdk_cannot_start_and_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from holodeck_lsp.runner.run_request import RunCannotStart
    from holodeck_lsp.runner.secrets import Redactor
    from holodeck_lsp.runner.tracing.session import open_tracing

    # As on an install without the `tracing` extra: the SDK cannot be imported.
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)
    monkeypatch.delitem(sys.modules, "holodeck_lsp.runner.tracing.provider", raising=False)
    monkeypatch.delitem(sys.modules, "holodeck_lsp.runner.tracing.run_trace", raising=False)
    with pytest.raises(RunCannotStart, match=r"pip install 'holodeck-lsp\[tracing\]'"):
        open_tracing(agent({"enabled": True}), None, {}, Redactor(), {})
    assert open_tracing(agent({"enabled": True}), False, {}, Redactor(), {}) is None
