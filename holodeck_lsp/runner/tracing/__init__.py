"""OpenTelemetry traces of a run (docs/observability.md): GenAI spans and evaluation events,
made only when tracing is on; nothing here imports OpenTelemetry until then."""
