"""A folder of agent files is one run (commands/run/folder_run.py), through the console script
against the loopback OpenAI fake: two agents whose `tools.py`, `graders.py` and a helper both
import (`helpers.py`) differ each run with their own code — the second used to get the
first's modules from sys.modules —, the run ends with one grand total (console, JSON, JUnit,
HTML, exit status), and `--record DIR` records one cassette per agent file that `--replay DIR`
answers from."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply, ToolCall
from tests.runner.test_run_cli_live import child_env, run_cli

pytestmark = pytest.mark.slow

KEY = "sk-folder-4e2b9d7a1c"
AGENT = """\
name: agent-{word}
model: {{provider: openai, name: gpt-fake, endpoint: "{endpoint}"}}
instructions: {{inline: "Say the word the tool gives."}}
tools:
  - {{name: word, type: function, description: "the word", file: tools.py, function: word}}
evaluations:
  metrics:
    - {{type: code, grader: "graders:check"}}
test_cases:
  - {{name: "the word", input: "Which word?"}}
  - {{name: "again", input: "Which word again?"}}
"""


def _agent(folder: Path, word: str, endpoint: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "helpers.py").write_text(f"WORD = {word!r}\n", "utf-8")
    (folder / "tools.py").write_text(
        'import helpers\n\n\ndef word() -> str:\n    """The word."""\n    return helpers.WORD\n',
        "utf-8",
    )
    (folder / "graders.py").write_text(
        "import helpers\n\n\ndef check(ctx):\n    return ctx.agent_response == helpers.WORD\n",
        "utf-8",
    )
    path = folder / "agent.yaml"
    path.write_text(AGENT.format(word=word, endpoint=endpoint), "utf-8")
    return path


def _echo_the_tool(body: dict[str, Any]) -> Reply:
    """Call the tool, then answer with what it returned."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        return Reply(text=str(last["content"]))
    return Reply(tool_calls=[ToolCall("tools-word", {})])


@pytest.fixture
def suite(tmp_path: Path, fake_openai: FakeOpenAIServer) -> Path:
    fake_openai.responder = _echo_the_tool
    endpoint = f"{fake_openai.base_url}/v1"
    _agent(tmp_path / "suite" / "alpha", "alpha", endpoint)
    _agent(tmp_path / "suite" / "beta", "beta", endpoint)
    return tmp_path / "suite"


async def test_each_agent_runs_its_own_code_and_the_run_ends_with_one_total(
    tmp_path: Path, suite: Path
) -> None:
    env = child_env(tmp_path, OPENAI_API_KEY=KEY)
    out = tmp_path / "out"
    done = await run_cli(
        [
            str(suite),
            "--report-json", str(out / "r.json"),
            "--junit", str(out / "r.xml"),
            "--report-html", str(out / "r.html"),
            "--report-md", str(out / "r.md"),
        ],
        env,
        tmp_path,
    )  # fmt: skip
    assert done.status == 0, done.out + done.err
    assert "could not be loaded" not in done.out, done.out
    last = done.out.rstrip().splitlines()[-1]
    assert last.startswith("all 2 agent files: 4 passed, 0 failed of 4 test cases"), done.out
    report = json.loads((out / "r.json").read_text("utf-8"))
    assert report["summary"]["total_tests"] == 4 and report["summary"]["passed"] == 4
    names = sorted(result["test_name"] for result in report["results"])
    assert names == [
        "alpha/agent.yaml::again",
        "alpha/agent.yaml::the word",
        "beta/agent.yaml::again",
        "beta/agent.yaml::the word",
    ]
    suites = ET.parse(out / "r.xml").getroot()
    assert suites.get("tests") == "4" and suites.get("failures") == "0"
    assert (out / "r.html").read_text("utf-8").count("agent.yaml::again") == 2
    assert "beta/agent.yaml::again" in (out / "r.md").read_text("utf-8")


async def test_a_failing_agent_fails_the_folder_run(tmp_path: Path, suite: Path) -> None:
    # The second agent's grader now expects another word: only its cases fail.
    (suite / "beta" / "graders.py").write_text("def check(ctx):\n    return False\n", "utf-8")
    done = await run_cli([str(suite)], child_env(tmp_path, OPENAI_API_KEY=KEY), tmp_path)
    assert done.status == 1, done.out + done.err
    last = done.out.rstrip().splitlines()[-1]
    assert last.startswith("all 2 agent files: 2 passed, 2 failed of 4 test cases"), done.out


async def test_record_on_a_folder_writes_one_cassette_per_agent_file_that_replays(
    tmp_path: Path, suite: Path, fake_openai: FakeOpenAIServer
) -> None:
    env = child_env(tmp_path, OPENAI_API_KEY=KEY)
    cassettes = tmp_path / "cassettes"
    recorded = await run_cli([str(suite), "--record", str(cassettes)], env, tmp_path)
    assert recorded.status == 0, recorded.out + recorded.err
    assert sorted(p.relative_to(cassettes).as_posix() for p in cassettes.rglob("*.json")) == [
        "alpha/agent.json",
        "beta/agent.json",
    ]
    asked = len(fake_openai.requests)
    replayed = await run_cli(
        [str(suite), "--replay", str(cassettes)], child_env(tmp_path), tmp_path
    )
    assert replayed.status == 0, replayed.out + replayed.err
    assert replayed.out.rstrip().splitlines()[-1].startswith("all 2 agent files: 4 passed")
    assert len(fake_openai.requests) == asked  # answered from the cassettes alone
