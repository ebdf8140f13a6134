"""`observability:` — OpenTelemetry traces, metrics and logs, and where they are exported."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Self

from pydantic import AfterValidator, Field, SecretStr, model_validator

from holodeck_lsp.schema.base import StrictModel, fault
from holodeck_lsp.schema.codes import Code


class LogLevel(StrEnum):
    """Lowest severity of log records that are exported."""

    DEBUG = "DEBUG"
    INFO = "INFO"
    WARNING = "WARNING"
    ERROR = "ERROR"
    CRITICAL = "CRITICAL"


class OTLPProtocol(StrEnum):
    """Wire protocol for OTLP export."""

    GRPC = "grpc"
    HTTP = "http"


def _compiles(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise fault(Code.BAD_REGEX, f"not a valid regular expression: {exc}") from exc
    return pattern


#: A Python regular expression that must compile.
RegexStr = Annotated[str, AfterValidator(_compiles)]


class TracingConfig(StrictModel):
    """Span collection: sampling, captured content, redaction and export batching."""

    enabled: bool = Field(default=True, description="Collect traces. Default true.")
    sample_rate: float = Field(
        default=1.0,
        ge=0.0,
        le=1.0,
        description="Fraction of traces kept, 0.0–1.0. Default 1.0 (all).",
    )
    capture_content: bool = Field(
        default=False,
        description="Record prompts and completions on spans (may expose sensitive data). "
        "Default false.",
    )
    capture_evaluation_content: bool = Field(
        default=False,
        description="Record evaluation input, actual and expected output on spans (may expose "
        "sensitive data). Default false.",
    )
    redaction_patterns: list[RegexStr] = Field(
        default_factory=list,
        description="Python regular expressions; matching text is masked in captured "
        "content. Default none.",
    )
    max_queue_size: int = Field(
        default=2048,
        ge=1,
        description="Most spans waiting for export (≥ 1, and at least max_export_batch_size). "
        "Default 2048.",
    )
    max_export_batch_size: int = Field(
        default=512, ge=1, description="Most spans sent in one export (≥ 1). Default 512."
    )
    schedule_delay_millis: int = Field(
        default=2000,
        ge=100,
        description="Milliseconds between span exports (≥ 100). Default 2000.",
    )

    @model_validator(mode="after")
    def _queue_holds_a_batch(self) -> Self:
        if self.max_queue_size < self.max_export_batch_size:
            at = (
                "max_queue_size"
                if "max_queue_size" in self.model_fields_set
                else "max_export_batch_size"
            )
            raise fault(
                Code.OUT_OF_RANGE,
                f"max_queue_size ({self.max_queue_size}) is smaller than "
                f"max_export_batch_size ({self.max_export_batch_size}); the queue must hold at "
                "least one batch",
                at=at,
            )
        return self


class MetricsConfig(StrictModel):
    """Metric collection."""

    enabled: bool = Field(default=True, description="Collect metrics. Default true.")
    export_interval_ms: int = Field(
        default=5000,
        ge=1000,
        description="Milliseconds between metric exports (≥ 1000). Default 5000.",
    )


class LogsConfig(StrictModel):
    """Structured log export."""

    enabled: bool = Field(default=True, description="Export log records. Default true.")
    level: LogLevel = Field(
        default=LogLevel.INFO,
        description="Lowest level exported: DEBUG, INFO, WARNING, ERROR or CRITICAL (upper "
        "case). Default INFO.",
    )
    include_trace_context: bool = Field(
        default=True, description="Attach trace and span ids to log records. Default true."
    )
    filter_namespaces: list[str] = Field(
        default_factory=lambda: ["semantic_kernel"],
        description="Logger names whose records are exported. Default [semantic_kernel].",
    )


class ConsoleExporterConfig(StrictModel):
    """Print telemetry to standard output (used when no other exporter is enabled)."""

    enabled: bool = Field(default=True, description="Print telemetry. Default true.")
    pretty_print: bool = Field(default=True, description="Indent output. Default true.")
    include_timestamps: bool = Field(default=True, description="Show timestamps. Default true.")


class OTLPExporterConfig(StrictModel):
    """Send telemetry to an OTLP collector (Jaeger, Honeycomb, Datadog, ...)."""

    enabled: bool = Field(default=True, description="Export over OTLP. Default true.")
    endpoint: str = Field(
        default="http://localhost:4317",
        description="Collector address. Default http://localhost:4317.",
    )
    protocol: OTLPProtocol = Field(
        default=OTLPProtocol.GRPC, description="`grpc` or `http`. Default `grpc`."
    )
    headers: dict[str, str] = Field(
        default_factory=dict, description="Headers sent with each export, e.g. an API key."
    )
    timeout_ms: int = Field(
        default=30000, ge=1000, description="Export timeout in ms (≥ 1000). Default 30000."
    )
    compression: str | None = Field(
        default=None,
        description="Compression of exports, e.g. `gzip` or `deflate`; none if omitted.",
    )
    insecure: bool = Field(default=True, description="Connect without TLS. Default true.")


class PrometheusExporterConfig(StrictModel):
    """Serve metrics over HTTP for Prometheus to scrape."""

    enabled: bool = Field(default=False, description="Serve the metrics endpoint. Default false.")
    port: int = Field(
        default=8889, ge=1024, le=65535, description="Port to listen on, 1024–65535. Default 8889."
    )
    host: str = Field(
        default="0.0.0.0", description="Address to bind. Default 0.0.0.0 (all interfaces)."
    )
    path: str = Field(default="/metrics", description="URL path of the endpoint. Default /metrics.")


class AzureMonitorExporterConfig(StrictModel):
    """Send telemetry to Azure Monitor / Application Insights."""

    enabled: bool = Field(
        default=False,
        description="Export to Azure Monitor; needs `connection_string`. Default false.",
    )
    connection_string: SecretStr | None = Field(
        default=None,
        description="Application Insights connection string; required when enabled. Prefer "
        "`${APPLICATIONINSIGHTS_CONNECTION_STRING}` to a literal value.",
    )
    disable_offline_storage: bool = Field(
        default=False,
        description="Do not keep unsent telemetry on disk for retrying. Default false.",
    )
    storage_directory: str | None = Field(
        default=None, description="Directory for unsent telemetry; a temp directory if omitted."
    )

    @model_validator(mode="after")
    def _enabled_needs_connection(self) -> Self:
        if self.enabled and (
            self.connection_string is None or not self.connection_string.get_secret_value()
        ):
            raise fault(
                Code.MISSING_FIELD,
                "Azure Monitor export needs `connection_string:` (e.g. "
                "${APPLICATIONINSIGHTS_CONNECTION_STRING})",
                at="enabled",
            )
        return self


class ExportersConfig(StrictModel):
    """Telemetry destinations; the console is used when none is enabled."""

    console: ConsoleExporterConfig | None = Field(
        default=None, description="Standard-output exporter (the fallback)."
    )
    otlp: OTLPExporterConfig | None = Field(default=None, description="OTLP collector exporter.")
    prometheus: PrometheusExporterConfig | None = Field(
        default=None, description="Prometheus scrape endpoint."
    )
    azure_monitor: AzureMonitorExporterConfig | None = Field(
        default=None, description="Azure Monitor / Application Insights exporter."
    )


class ObservabilityConfig(StrictModel):
    """OpenTelemetry settings of the agent."""

    enabled: bool = Field(default=False, description="Turn telemetry on. Default false.")
    disable_provider_tracing: bool = Field(
        default=False,
        description="Stop the model provider's own trace upload (e.g. the OpenAI Agents SDK "
        "to platform.openai.com) and keep only OpenTelemetry. Default false.",
    )
    service_name: str | None = Field(
        default=None, description="OpenTelemetry service name. Default `holodeck-<agent name>`."
    )
    traces: TracingConfig = Field(default_factory=TracingConfig, description="Trace settings.")
    metrics: MetricsConfig = Field(default_factory=MetricsConfig, description="Metric settings.")
    logs: LogsConfig = Field(default_factory=LogsConfig, description="Log export settings.")
    exporters: ExportersConfig = Field(
        default_factory=ExportersConfig, description="Where telemetry is sent."
    )
    resource_attributes: dict[str, str] = Field(
        default_factory=dict,
        description="Extra OpenTelemetry resource attributes, name to string value.",
    )
