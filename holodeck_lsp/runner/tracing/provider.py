"""The OpenTelemetry SDK set up for a run's `TraceSettings`: resource, sampler, batching, the
OTLP (gRPC or HTTP/protobuf) and console exporters — each behind the masking step, so no span
leaves the process with a secret in it (docs/observability.md, "Secrets").

One provider per distinct settings, kept for the process: the editor runs many times.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Sequence
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased
from opentelemetry.trace import Status

from holodeck_lsp.runner.secrets import MASK, Redactor
from holodeck_lsp.runner.tracing.genai import SCHEMA_URL
from holodeck_lsp.runner.tracing.settings import ExporterSpec, TraceSettings

_lock = threading.Lock()
_providers: dict[TraceSettings, tuple[TracerProvider, MaskingExporter | None]] = {}


class Masking:
    """The run's `Redactor` (the one masking step, runner/secrets.py) and the block's
    `redaction_patterns`, applied to every string a span carries."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self.redactor = Redactor()
        self._patterns = [re.compile(pattern) for pattern in patterns]

    def add(self, redactor: Redactor) -> None:
        # Runs of the same settings share the exporter: their secrets add up, never replace.
        if not self.redactor.covers(redactor):
            self.redactor = self.redactor | redactor

    def text(self, text: str) -> str:
        text = self.redactor.text(text)
        for pattern in self._patterns:
            text = pattern.sub(MASK, text)
        return text

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, tuple | list):
            return tuple(self.text(v) if isinstance(v, str) else v for v in value)
        return value

    def attributes(self, attributes: Any) -> dict[str, Any]:
        return {key: self.value(value) for key, value in (attributes or {}).items()}


class MaskingExporter(SpanExporter):
    """Hands `inner` copies of the spans with every string attribute, event attribute, name
    and status description masked."""

    def __init__(self, inner: SpanExporter, masking: Masking) -> None:
        self._inner = inner
        self.masking = masking
        #: The resource masked once (a `${VAR}` in `resource_attributes` is a secret too).
        self._resources: dict[int, tuple[Resource, Resource]] = {}

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return self._inner.export([self._masked(span) for span in spans])

    def _masked(self, span: ReadableSpan) -> ReadableSpan:
        mask = self.masking
        status = span.status
        description = status.description
        return ReadableSpan(
            name=mask.text(span.name),
            context=span.context,
            parent=span.parent,
            resource=self._resource(span.resource),
            attributes=mask.attributes(span.attributes),
            events=[
                Event(mask.text(event.name), mask.attributes(event.attributes), event.timestamp)
                for event in span.events
            ],
            links=span.links,
            kind=span.kind,
            status=Status(status.status_code, mask.text(description) if description else None),
            start_time=span.start_time,
            end_time=span.end_time,
            instrumentation_scope=span.instrumentation_scope,
        )

    def _resource(self, resource: Resource) -> Resource:
        known = self._resources.get(id(resource))
        if known is None or known[0] is not resource:
            masked = Resource(self.masking.attributes(resource.attributes), resource.schema_url)
            known = self._resources[id(resource)] = (resource, masked)
        return known[1]

    def shutdown(self) -> None:
        self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return bool(self._inner.force_flush(timeout_millis))


def provider_for(settings: TraceSettings, redactor: Redactor) -> TracerProvider:
    """The process's provider for `settings`, now masking `redactor`'s secrets too."""
    with _lock:
        known = _providers.get(settings)
        if known is None:
            known = _providers[settings] = _new_provider(settings)
    _provider, masking = known
    if masking is not None:
        masking.masking.add(redactor)
    return _provider


def _new_provider(settings: TraceSettings) -> tuple[TracerProvider, MaskingExporter | None]:
    resource = Resource.create(
        {"service.name": settings.service_name, **dict(settings.resource_attributes)},
        schema_url=SCHEMA_URL,
    )
    provider = TracerProvider(
        resource=resource, sampler=ParentBased(TraceIdRatioBased(settings.sample_rate))
    )
    masking = Masking(settings.redaction_patterns)
    first: MaskingExporter | None = None
    for spec in settings.exporters:
        inner = DeferredExporter(spec) if spec.kind == "otlp" else _exporter(spec)
        exporter = MaskingExporter(inner, masking)
        first = first or exporter
        provider.add_span_processor(
            BatchSpanProcessor(
                exporter,
                max_queue_size=settings.max_queue_size,
                max_export_batch_size=settings.max_export_batch_size,
                schedule_delay_millis=settings.schedule_delay_millis,
            )
        )
    return provider, first


class DeferredExporter(SpanExporter):
    """The OTLP exporter, built at the first export instead of when the run starts: loading
    gRPC and protobuf takes about 0.2 s, and the first export runs in the batch processor's
    thread while the run waits on the model, not before the first case starts
    (docs/benchmarks.md, "Tracing overhead")."""

    def __init__(self, spec: ExporterSpec) -> None:
        self._spec = spec
        self._built: SpanExporter | None = None
        self._lock = threading.Lock()

    def _exporter(self) -> SpanExporter:
        with self._lock:
            if self._built is None:
                self._built = _exporter(self._spec)
            return self._built

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return self._exporter().export(spans)

    def shutdown(self) -> None:
        if self._built is not None:
            self._built.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._built is None or bool(self._built.force_flush(timeout_millis))


def _exporter(spec: ExporterSpec) -> SpanExporter:
    if spec.kind == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        # Standard error: the CLI's standard output may be a report, the server's is LSP.
        return ConsoleSpanExporter(out=sys.stderr)
    headers = dict(spec.headers) or None
    if spec.protocol == "grpc":
        import grpc  # type: ignore[import-untyped]
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
            OTLPSpanExporter as GrpcExporter,
        )

        compression = {"gzip": grpc.Compression.Gzip, "deflate": grpc.Compression.Deflate}.get(
            (spec.compression or "").lower()
        )
        return GrpcExporter(
            endpoint=spec.endpoint,
            insecure=spec.insecure,
            headers=tuple(headers.items()) if headers else None,
            timeout=spec.timeout_s,
            compression=compression,
        )
    from opentelemetry.exporter.otlp.proto.http import Compression
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
        OTLPSpanExporter as HttpExporter,
    )

    endpoint = spec.endpoint
    if not endpoint.rstrip("/").endswith("/v1/traces"):
        endpoint = endpoint.rstrip("/") + "/v1/traces"
    http_compression = {"gzip": Compression.Gzip, "deflate": Compression.Deflate}.get(
        (spec.compression or "").lower()
    )
    return HttpExporter(
        endpoint=endpoint, headers=headers, timeout=spec.timeout_s, compression=http_compression
    )
