"""`import otel` (holodeck_lsp/importers/otel; the cassette by
commands/import_/otel_cassette.py) on a production trace written by another instrumentation
(tests/importers/otel_traces.py): conversations grouped by `gen_ai.conversation.id` across
exports, the suite's text and the cassette, and the refusals (docs/importing-otel.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from holodeck_lsp.checker.diagnostics import Severity
from holodeck_lsp.checker.loader import load_agent_text
from holodeck_lsp.commands.import_.otel_cassette import suite_cassette
from holodeck_lsp.importers.otel.importer import import_otel
from holodeck_lsp.importers.otel.spans import OtelImportError
from tests.importers.otel_traces import CONVERSATION, TRACE_ID, production_trace


def test_a_production_conversation_becomes_one_case(tmp_path: Path) -> None:
    suite = import_otel(production_trace(tmp_path / "trace.jsonl"), "support-regression")
    assert (suite.cases, suite.turns) == (1, 2)
    text = suite.agent
    assert 'model: {provider: anthropic, name: "claude-sonnet-4-5"}' in text
    assert f"  # otel: {CONVERSATION} (service support-prod)\n" in text
    assert '          - {name: "order_status", args: {"order_id": 42}}' in text
    assert 'ground_truth: "You\'re welcome."' in text
    cassette = json.loads(suite_cassette(suite, "support-regression").render())
    assert cassette["model"] == "anthropic:claude-sonnet-4-5"
    [case] = cassette["cases"]
    first, second = case["turns"]
    assert first["tool_calls"][0]["result"] == {"status": "shipped"}
    assert second["response"] == "You're welcome."

    loaded = load_agent_text(text, tmp_path / "agent.yaml")
    assert loaded.agent is not None, loaded.diagnostics
    assert [d for d in loaded.diagnostics if d.severity == Severity.ERROR] == []


def test_one_conversation_is_picked_by_its_trace_id_or_refused(tmp_path: Path) -> None:
    trace = production_trace(tmp_path / "trace.jsonl")
    assert import_otel(trace, "x", TRACE_ID).cases == 1
    with pytest.raises(OtelImportError, match="has no conversation nope"):
        import_otel(trace, "x", "nope")


def test_files_that_are_no_trace_are_refused_with_the_cause(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text('{"resourceSpans": []}', encoding="utf-8")
    with pytest.raises(OtelImportError, match="has no spans"):
        import_otel(empty, "x")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"resourceSpans": []}\nnot json\n', encoding="utf-8")
    with pytest.raises(OtelImportError, match=r"broken.jsonl:2 is not JSON"):
        import_otel(broken, "x")
    chat_only = tmp_path / "chat.json"
    span = {"traceId": TRACE_ID, "spanId": "1000000000000009", "name": "chat gpt-4o"}
    chat_only.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    with pytest.raises(OtelImportError, match="no `invoke_agent` span"):
        import_otel(chat_only, "x")
