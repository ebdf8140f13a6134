"""The suite the editor-run tests share: an agent with a two-turn case and a single-turn case,
its replay cassette (`run.cassette.json`), the line numbers of its parts, and helpers to start
the real server on it, run its commands and read lenses, hints and run diagnostics."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import TIMEOUT, change_file, initialize, open_file, wait_for

AGENT = """name: runs
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: "Answer."
evaluations:
  metrics:
    - type: standard
      metric: numeric
test_cases:
  - name: two-turns
    turns:
      - input: "q0"
        ground_truth: "10"
      - input: "q1"
        ground_truth: "5"
        expected_tools:
          - name: subtract
            args:
              a: 10
              b: 5
  - name: single
    input: "q2"
    ground_truth: "7"
"""


CASES_LINE, TURN0_LINE, TURN1_LINE, ARG_B_LINE, SINGLE_LINE = 11, 13, 15, 21, 22


def _turn(
    text: str, response: str, tools: list[dict[str, Any]] | None = None, ms: int = 1300
) -> dict[str, Any]:
    return {
        "input": text,
        "response": response,
        "tool_calls": tools or [],
        "token_usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
        "error": None,
        "duration_ms": ms,
    }


CASSETTE = {
    "format": "holodeck-cassette",
    "version": 1,
    "agent": "runs",
    "cases": [
        {
            "name": "two-turns",
            "index": 0,
            "turns": [
                _turn("q0", "10"),
                _turn(
                    "q1",
                    "5",
                    [{"name": "subtract", "args": {"a": 10, "b": 6}, "result": 4, "error": None}],
                ),
            ],
        },
        {"name": "single", "index": 1, "turns": [_turn("q2", "7")]},
    ],
}


def write_suite(root: Path) -> Path:
    agent = root / "agent.yaml"
    agent.write_text(AGENT, encoding="utf-8")
    (root / "run.cassette.json").write_text(json.dumps(CASSETTE, indent=2), encoding="utf-8")
    return agent


async def start(
    client: LanguageClient,
    root: Path,
    *,
    trusted: bool,
    cassette: bool = True,
    diagnostics: str = "push",
    settings: dict[str, Any] | None = None,
) -> str:
    """Like `lsp_client.initialize`, with the capabilities the run features use; `settings`
    are added to the `holodeck` section."""
    settings = {**({"cassettePath": "run.cassette.json"} if cassette else {}), **(settings or {})}
    await initialize(
        client,
        root=root,
        trusted=trusted,
        diagnostics=diagnostics,
        settings=settings,
        progress=True,
    )
    document_uri = open_file(client, write_suite(root))
    if diagnostics != "pull":
        await wait_for(client, document_uri)
    return document_uri


def record_results(client: LanguageClient) -> list[Any]:
    received: list[Any] = []

    @client.feature("holodeck/runResult")
    def on_result(params: Any) -> None:
        received.append(params)

    return received


async def lenses(client: LanguageClient, document_uri: str) -> list[tuple[int, str, list[Any]]]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=document_uri))
    )
    return [
        (lens.range.start.line, lens.command.title, list(lens.command.arguments or []))
        for lens in found or []
        if lens.command is not None
    ]


async def hints(client: LanguageClient, document_uri: str) -> list[tuple[int, str]]:
    found = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=document_uri),
            range=types.Range(types.Position(0, 0), types.Position(100, 0)),
        )
    )
    return [(hint.position.line, str(hint.label)) for hint in found or []]


async def run(client: LanguageClient, command: str, *arguments: Any) -> Any:
    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=list(arguments))
        ),
        TIMEOUT,
    )


def run_items(params: types.PublishDiagnosticsParams) -> list[types.Diagnostic]:
    return [d for d in params.diagnostics if d.source == "holodeck-run"]


SLOW_GRADER = """import time


def slow(context):
    time.sleep(1.5)
    return False


def fail(context):
    return False
"""


async def grade_turn_0_with(
    client: LanguageClient, tmp_path: Path, document_uri: str, grader: str
) -> str:
    """The suite (version 2 of the open document, returned) with a code grader of SLOW_GRADER
    on the first case's turn 0 — `slow` (a run that takes a while) or `fail` — checked."""
    (tmp_path / "slow_grader.py").write_text(SLOW_GRADER, encoding="utf-8")
    text = AGENT.replace(
        '        ground_truth: "10"\n',
        '        ground_truth: "10"\n        evaluations:\n'
        f"          - type: code\n            grader: slow_grader:{grader}\n",
    )
    change_file(client, document_uri, text, version=2)
    await wait_for(client, document_uri, lambda p: p.version == 2)
    return text
