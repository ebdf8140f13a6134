"""Judged metrics in the editor, over the real server: a G-Eval verdict recorded in the
cassette shows in the inlay hint and in a hover on the metric (with the judge's reason);
editing the criteria re-grades the case without calling any model — the judged metric
says it needs a run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from holodeck_lsp.engine.evaluators.judges import JudgeRequest, TurnInputs, judge_request
from holodeck_lsp.schema.metrics import GEvalMetric
from tests.server.lsp_client import change_file, wait_for
from tests.server.test_server_run import hints, run, start

pytestmark = pytest.mark.slow  # a real server and a run: seconds

CRITERIA = "The answer states the number without hedging."
AGENT = f"""name: runs
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: "Answer."
test_cases:
  - name: two-turns
    turns:
      - input: "q0"
        evaluations:
          - type: geval
            name: Direct
            criteria: {CRITERIA}
      - input: "q1"
        ground_truth: "5"
  - name: single
    input: "q2"
    ground_truth: "7"
"""
TURN0_LINE, METRIC_LINE = 9, 11  # the metric entry's first line: `- type: geval`
REASON = "It states 10 plainly, with no caveat."


def _key(criteria: str) -> str:
    metric = GEvalMetric(name="Direct", criteria=criteria)
    request = judge_request(metric, TurnInputs("q0", "10", None, None), "openai:gpt-4o-mini")
    assert isinstance(request, JudgeRequest)
    return request.key


def _turn(text: str, response: str) -> dict[str, object]:
    return {"input": text, "response": response, "tool_calls": [], "token_usage": None,
            "error": None, "duration_ms": 5}  # fmt: skip


def write_cassette(root: Path) -> None:
    first = _turn("q0", "10")
    first["judgements"] = [
        {
            "metric": "Direct",
            "kind": "geval",
            "input": _key(CRITERIA),
            "model": "openai:gpt-4o-mini",
            "score": 0.9,
            "reason": REASON,
            "token_usage": {"prompt_tokens": 40, "completion_tokens": 12, "total_tokens": 52},
            "latency_ms": 800,
            "calls": 2,
        }
    ]
    cassette = {
        "format": "holodeck-cassette",
        "version": 2,
        "agent": "runs",
        "cases": [
            {"name": "two-turns", "index": 0, "turns": [first, _turn("q1", "5")]},
            {"name": "single", "index": 1, "turns": [_turn("q2", "7")]},
        ],
    }
    (root / "run.cassette.json").write_text(json.dumps(cassette), encoding="utf-8")


async def hover_text(client: LanguageClient, uri: str, line: int, character: int) -> str:
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line, character),
        )
    )
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    return found.contents.value


async def test_a_recorded_judgement_shows_in_hints_and_hover_and_edits_never_judge(
    client: LanguageClient, tmp_path: Path
) -> None:
    (tmp_path / "agent.yaml").write_text(AGENT, encoding="utf-8")
    write_cassette(tmp_path)
    uri = await start(client, tmp_path, trusted=True)
    # `start` wrote its own suite: put ours back (same file name) and reopen the text.
    (tmp_path / "agent.yaml").write_text(AGENT, encoding="utf-8")
    write_cassette(tmp_path)
    change_file(client, uri, AGENT, version=2)
    await wait_for(client, uri, lambda p: p.version == 2)
    answer = await run(client, "holodeck.runCase", uri, 0)
    assert answer["status"] == "done", answer
    assert (TURN0_LINE, "✓ 10 · Direct 0.90 · 0.0 s") in await hints(client, uri)
    text = await hover_text(client, uri, METRIC_LINE, 14)
    assert "**Direct** on turn 0: ✓ 0.90 (threshold 0.5)" in text
    assert "judge `openai:gpt-4o-mini`, 52 tokens" in text and REASON in text

    # New criteria: re-graded from the answers, no model called — it needs a run.
    change_file(client, uri, AGENT.replace("without hedging.", "plainly."), version=3)
    await wait_for(client, uri, lambda p: p.version == 3)
    for _ in range(50):
        text = await hover_text(client, uri, METRIC_LINE, 14)
        if "skipped" in text:
            break
        await asyncio.sleep(0.05)
    assert "**Direct** on turn 0: skipped" in text and "needs a run" in text
