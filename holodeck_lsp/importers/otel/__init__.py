"""`import otel`: a conversation recorded as OpenTelemetry GenAI spans (OTLP JSON) as a test
case and a cassette replaying it (docs/importing-otel.md)."""
