"""`run --trace / --no-trace`: trace this run or not, whatever the agent's `observability:`
block says (docs/observability.md, "Turning tracing on")."""

from __future__ import annotations

import argparse


def add_trace_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--trace",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="send this run's OpenTelemetry spans (GenAI conventions) to the agent's "
        "observability exporters, else $OTEL_EXPORTER_OTLP_ENDPOINT, else stderr; --no-trace: "
        "none even when observability: is enabled (default: the agent's observability: block)",
    )
