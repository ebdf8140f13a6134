"""What the tracing tests share: a receiver per test, a span tree by name, the observability
block written into a suite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.otlp_receiver import OtlpReceiver


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[OtlpReceiver]:
    found = OtlpReceiver(tmp_path)
    try:
        yield found
    finally:
        found.close()


def observability_block(endpoint: str, protocol: str = "grpc", extra: str = "") -> str:
    return (
        "observability:\n"
        "  enabled: true\n"
        "  service_name: calc-under-test\n"
        "  resource_attributes: {team: evals}\n"
        f"{extra}"
        "  exporters:\n"
        f"    otlp: {{endpoint: '{endpoint}', protocol: {protocol}}}\n"
    )


def by_name(spans: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    return [span for span in spans if span["name"].startswith(prefix)]


def children(spans: list[dict[str, Any]], parent: dict[str, Any]) -> list[dict[str, Any]]:
    found = [span for span in spans if span["parent"] == parent["span_id"]]
    return sorted(found, key=lambda span: span["start"])


def evaluations(span: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        event["attributes"]["gen_ai.evaluation.name"]: event["attributes"]
        for event in span["events"]
        if event["name"] == "gen_ai.evaluation.result"
    }
