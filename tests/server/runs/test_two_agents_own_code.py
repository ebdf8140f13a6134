"""The editor with several agents in one workspace (the real server over stdio): each agent's
`graders.py` is its own, though both folders name the module alike — one server process
imports both (runner/agent_code/agent_modules.py); the second used to be refused because the
first agent's `graders` was already in sys.modules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from tests.server.lsp_client import initialize, open_file, wait_for
from tests.server.runs.run_suite import CASSETTE, run

pytestmark = pytest.mark.slow  # a server, two runs

AGENT = """name: runs
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: "Answer."
evaluations:
  metrics:
    - type: code
      grader: "graders:check"
test_cases:
  - name: single
    input: "q2"
    ground_truth: "7"
"""


def _agent(folder: Path, verdict: bool) -> Path:
    folder.mkdir()
    (folder / "graders.py").write_text(f"def check(context):\n    return {verdict}\n", "utf-8")
    cassette = {**CASSETTE, "cases": [{**CASSETTE["cases"][1], "index": 0}]}
    (folder / "run.cassette.json").write_text(json.dumps(cassette), "utf-8")
    path = folder / "agent.yaml"
    path.write_text(AGENT, "utf-8")
    return path


async def test_two_agents_graders_of_one_name_each_grade_their_own(
    client: LanguageClient, tmp_path: Path
) -> None:
    first = _agent(tmp_path / "first", verdict=False)
    second = _agent(tmp_path / "second", verdict=True)
    await initialize(
        client,
        root=tmp_path,
        trusted=True,
        settings={"cassettePath": "run.cassette.json"},
        progress=True,
    )
    answers = []
    for path in (first, second):
        document_uri = open_file(client, path)
        await wait_for(client, document_uri)
        answers.append(await run(client, "holodeck.runAll", document_uri))
    failed, passed = answers
    assert failed["summary"]["failed"] == 1, failed["results"]
    assert passed["summary"]["passed"] == 1, passed["results"]
