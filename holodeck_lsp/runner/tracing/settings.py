"""Whether a run is traced and where its spans go: the agent's `observability:` block (with
upstream HoloDeck's meaning of each field), the standard `OTEL_*` environment variables and
the run's `--trace` / `--no-trace` flag, folded into one `TraceSettings`
(docs/observability.md, "Turning tracing on").

Pure: reads the given mapping, imports no OpenTelemetry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.observability import ObservabilityConfig, OTLPProtocol

#: The OTLP ports by protocol; a localhost endpoint on the other protocol's port is moved,
#: as upstream does (`http://localhost:4317` with `protocol: http` goes to 4318).
_GRPC_PORT = 4317
_HTTP_PORT = 4318
#: The conventions' content opt-in (docs/observability.md, "Content").
CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


@dataclass(frozen=True, slots=True)
class ExporterSpec:
    """One destination of the run's spans."""

    kind: Literal["otlp", "console"]
    endpoint: str = ""
    protocol: Literal["grpc", "http"] = "grpc"
    headers: tuple[tuple[str, str], ...] = ()
    timeout_s: float = 30.0
    compression: str | None = None
    insecure: bool = True


@dataclass(frozen=True, slots=True)
class TraceSettings:
    service_name: str
    resource_attributes: tuple[tuple[str, str], ...] = ()
    sample_rate: float = 1.0
    capture_content: bool = False
    capture_evaluation_content: bool = False
    redaction_patterns: tuple[str, ...] = ()
    max_queue_size: int = 2048
    max_export_batch_size: int = 512
    schedule_delay_millis: int = 2000
    exporters: tuple[ExporterSpec, ...] = field(default_factory=tuple)


def trace_settings(agent: Agent, flag: bool | None, env: Mapping[str, str]) -> TraceSettings | None:
    """None when the run is not traced: `--no-trace`, or no `--trace` and the block is absent,
    `enabled: false` or `traces: {enabled: false}`."""
    block = agent.observability
    if flag is False:
        return None
    if flag is None and (block is None or not block.enabled or not block.traces.enabled):
        return None
    config = block if block is not None else ObservabilityConfig(enabled=True)
    traces = config.traces
    service = config.service_name or env.get("OTEL_SERVICE_NAME") or f"holodeck-{agent.name}"
    content = traces.capture_content or _truthy(env.get(CAPTURE_CONTENT_ENV))
    return TraceSettings(
        service_name=service,
        resource_attributes=tuple(sorted(config.resource_attributes.items())),
        sample_rate=traces.sample_rate,
        capture_content=content,
        capture_evaluation_content=traces.capture_evaluation_content,
        redaction_patterns=tuple(traces.redaction_patterns),
        max_queue_size=traces.max_queue_size,
        max_export_batch_size=traces.max_export_batch_size,
        schedule_delay_millis=traces.schedule_delay_millis,
        exporters=_exporters(config, env),
    )


def _exporters(config: ObservabilityConfig, env: Mapping[str, str]) -> tuple[ExporterSpec, ...]:
    """OTLP from the block (the environment filling what it leaves unset), else OTLP from the
    environment alone; the console when asked for or when nothing else is (upstream's rule)."""
    found: list[ExporterSpec] = []
    otlp = config.exporters.otlp
    env_endpoint = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or env.get(
        "OTEL_EXPORTER_OTLP_ENDPOINT"
    )
    if otlp is not None and otlp.enabled:
        given = otlp.model_fields_set
        protocol = otlp.protocol.value if "protocol" in given else _env_protocol(env) or "grpc"
        endpoint = otlp.endpoint if "endpoint" in given else env_endpoint or otlp.endpoint
        headers = dict(_env_headers(env))
        headers.update(otlp.headers)
        found.append(
            ExporterSpec(
                kind="otlp",
                endpoint=_for_protocol(endpoint, protocol),
                protocol=protocol,
                headers=tuple(headers.items()),
                timeout_s=otlp.timeout_ms / 1000,
                compression=otlp.compression,
                insecure=otlp.insecure,
            )
        )
    elif env_endpoint:
        protocol = _env_protocol(env) or "grpc"
        found.append(
            ExporterSpec(
                kind="otlp",
                endpoint=env_endpoint,
                protocol=protocol,
                headers=_env_headers(env),
                timeout_s=_env_timeout(env),
            )
        )
    console = config.exporters.console
    if (console is not None and console.enabled) or not found:
        found.append(ExporterSpec(kind="console"))
    return tuple(found)


def _for_protocol(endpoint: str, protocol: str) -> str:
    parts = urlsplit(endpoint)
    if parts.hostname not in ("localhost", "127.0.0.1"):
        return endpoint
    swap = {(OTLPProtocol.HTTP.value, _GRPC_PORT): _HTTP_PORT}
    swap[(OTLPProtocol.GRPC.value, _HTTP_PORT)] = _GRPC_PORT
    port = swap.get((protocol, parts.port or 0))
    if port is None:
        return endpoint
    return urlunsplit(parts._replace(netloc=f"{parts.hostname}:{port}"))


def _env_protocol(env: Mapping[str, str]) -> Literal["grpc", "http"] | None:
    value = env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL")
    if not value:
        return None
    return "grpc" if value.strip() == "grpc" else "http"


def _env_headers(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """`OTEL_EXPORTER_OTLP_HEADERS`: `name=value,name=value` (values percent-decoded)."""
    from urllib.parse import unquote

    raw = env.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS") or env.get("OTEL_EXPORTER_OTLP_HEADERS")
    pairs: list[tuple[str, str]] = []
    for item in (raw or "").split(","):
        name, sep, value = item.partition("=")
        if sep and name.strip():
            pairs.append((name.strip().lower(), unquote(value.strip())))
    return tuple(pairs)


def _env_timeout(env: Mapping[str, str]) -> float:
    raw = env.get("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") or env.get("OTEL_EXPORTER_OTLP_TIMEOUT")
    try:
        return float(raw) / 1000 if raw else 10.0
    except ValueError:
        return 10.0


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")
