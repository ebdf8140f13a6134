"""`holodeck-lsp run --model … --repeat N` as a real process: one suite against two providers
(Semantic Kernel on the fake OpenAI server, the Claude Agent SDK on the fake Anthropic server),
Ollama and OpenAI against the sample's offline oracle, repeats on a fake that answers right
every other time, and a provider whose SDK is missing."""

from __future__ import annotations

import json
import select
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from holodeck_lsp.cli import main
from tests.fakes import anthropic_server as anthropic
from tests.fakes import openai_server as openai
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer
from tests.runner.test_run_cli_live import Finished, child_env, read_report, run_cli
from tests.sample.sample_support import SCRIPTS_DIR, copy_sample, grader_imports_isolated

pytestmark = pytest.mark.slow

OPENAI_KEY = "sk-matrix-openai-5e1d9a7c"
ANTHROPIC_KEY = "sk-ant-matrix-3b8f2e6a"

AGENT = """\
name: matrix
model: {provider: openai, name: gpt-4o-mini, temperature: 0}
instructions: {inline: "Answer with the number only."}
evaluations:
  metrics:
    - {type: standard, metric: numeric, absolute_tolerance: 0.001}
test_cases:
  - name: differences
    turns:
      - {input: "What is 10 minus 3?", ground_truth: "7"}
      - {input: "And 100 minus 85?", ground_truth: "15"}
"""


def write_agent(folder: Path) -> Path:
    path = folder / "agent.yaml"
    path.write_text(AGENT, encoding="utf-8")
    return path


def matrix_env(
    tmp_path: Path, oai: FakeOpenAIServer, claude: FakeAnthropicServer
) -> dict[str, str]:
    return child_env(
        tmp_path,
        OPENAI_API_KEY=OPENAI_KEY,
        OPENAI_BASE_URL=oai.base_url,
        ANTHROPIC_API_KEY=ANTHROPIC_KEY,
        ANTHROPIC_BASE_URL=claude.base_url,
        CLAUDE_CODE_MAX_RETRIES="0",
    )


async def test_a_matrix_over_two_providers_reports_each_model(
    tmp_path: Path, fake_openai: FakeOpenAIServer, fake_anthropic: FakeAnthropicServer
) -> None:
    fake_openai.script(openai.Reply(text="7"), openai.Reply(text="15"))
    # Claude gets turn 1 wrong, and echoes its key: the key must be masked everywhere.
    fake_anthropic.script(
        anthropic.Reply(text="7"), anthropic.Reply(text=f"14 (key {ANTHROPIC_KEY})")
    )
    path = write_agent(tmp_path)
    out = tmp_path / "out"
    finished = await run_cli(
        [
            str(path),
            "--model", "openai:gpt-4o",
            "--model", "anthropic:claude-sonnet-4-5",
            "--parallel", "2",
            "-v",
            "--report-json", str(out / "report.json"),
            "--report-md", str(out / "report.md"),
            "--junit", str(out / "junit.xml"),
        ],
        matrix_env(tmp_path, fake_openai, fake_anthropic),
        tmp_path,
    )  # fmt: skip
    assert finished.status == 1, finished.err
    first_line = finished.out.splitlines()[0]
    assert "2 models: openai:gpt-4o, anthropic:claude-sonnet-4-5" in first_line
    report = read_report(out / "report.json")
    assert report.models == ["openai:gpt-4o", "anthropic:claude-sonnet-4-5"]
    assert [(r.model, [t.passed for t in r.turns or []]) for r in report.results] == [
        ("openai:gpt-4o", [True, True]),
        ("anthropic:claude-sonnet-4-5", [True, False]),
    ]
    assert report.model_summaries["openai:gpt-4o"].passed == 1
    assert report.model_summaries["anthropic:claude-sonnet-4-5"].failed == 1
    # Each provider got its own model name: the switch reached the right backend.
    assert all(r.body["model"] == "gpt-4o" for r in fake_openai.chat_requests)
    assert fake_anthropic.conversation_requests
    assert all(r.body["model"] == "claude-sonnet-4-5" for r in fake_anthropic.conversation_requests)
    # The table: a column per model, a row per turn with -v, the totals.
    assert "Matrix (2 models):" in finished.out
    turn_row = next(line for line in finished.out.splitlines() if line.strip().startswith("turn 1"))
    assert turn_row.split()[2:] == ["✓", "✗"]
    assert "cases passed" in finished.out and "agent tokens" in finished.out
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "## Models" in markdown and r"differences \[anthropic:claude-sonnet-4-5\]" in markdown
    junit = ET.parse(out / "junit.xml").getroot()
    suites = {suite.get("name"): suite for suite in junit.iter("testsuite")}
    assert set(suites) == {
        "differences [openai:gpt-4o]",
        "differences [anthropic:claude-sonnet-4-5]",
    }
    model_property = suites["differences [openai:gpt-4o]"].find(
        "properties/property[@name='model']"
    )
    assert model_property is not None and model_property.get("value") == "openai:gpt-4o"
    for text in (*finished.texts(), *(f.read_text() for f in out.iterdir())):
        assert ANTHROPIC_KEY not in text and OPENAI_KEY not in text


def repeats_mark_a_turn_that_passed_once_in_two_as_flaky(
    finished: Finished, report_path: Path
) -> None:
    """A `--repeat 2 -v` run whose model answered turn 0 right, then wrong: its report and
    console (a step of the compare test below, whose second run is this one)."""
    assert finished.status == 1, finished.err
    report = read_report(report_path)
    assert report.repeats == 2 and report.models == ["openai:gpt-4o-mini"]
    assert [r.repeat for r in report.results] == [1, 2]
    assert [r.passed for r in report.results] == [True, False]
    lines = finished.out.splitlines()
    turn0 = next(line for line in lines if line.strip().startswith("turn 0"))
    assert "1/2 ~ flaky" in turn0
    turn1 = next(line for line in lines if line.strip().startswith("turn 1"))
    assert "2/2" in turn1 and "flaky" not in turn1
    assert "pass@1" in finished.out
    passed_all = next(line for line in lines if line.strip().startswith("passed in all 2"))
    assert passed_all.split()[-1] == "0/1"


BLOCKER = '''\
"""Makes one package look uninstalled (a finder that refuses it), for this process only."""
import sys


class _Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "claude_agent_sdk":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _Refuse())
'''


async def test_a_provider_whose_sdk_is_missing_stops_before_any_turn(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    env = child_env(tmp_path, OPENAI_API_KEY=OPENAI_KEY, OPENAI_BASE_URL=fake_openai.base_url)
    env["PYTHONPATH"] = f"{blocker}:{env.get('PYTHONPATH', '')}"
    path = write_agent(tmp_path)
    finished = await run_cli(
        [str(path), "--model", "openai:gpt-4o", "--model", "anthropic:claude-x"], env, tmp_path
    )
    assert finished.status == 3, finished.err
    assert (
        "--model anthropic:claude-x: provider anthropic needs the `claude` extra "
        "(claude_agent_sdk is not installed): pip install 'holodeck-lsp[claude]'"
    ) in finished.err
    assert fake_openai.chat_requests == []  # not even the other model ran


# -- Ollama (and OpenAI) through the sample's offline oracle ----------------------------------


@pytest.fixture
def oracle_port(tmp_path: Path) -> Iterator[int]:
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPTS_DIR / "oracle_server.py"), "--port", "0", "--quiet",
         "--mistakes", "0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 20)
    line = proc.stdout.readline() if ready else ""
    try:
        assert line.startswith("oracle listening on http://127.0.0.1:"), line
        yield int(line.split("127.0.0.1:")[1].split()[0])
    finally:
        proc.terminate()  # this child only, by its handle
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_ollama_and_openai_side_by_side_against_the_oracle(
    oracle_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = copy_sample(tmp_path)
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{oracle_port}")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{oracle_port}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-oracle-7d1c")
    # The models come from the project's holodeck-lsp.yaml this time.
    (folder / "holodeck-lsp.yaml").write_text(
        "models:\n  - ollama:qwen2.5:7b\n  - openai:convfinqa-oracle\n", encoding="utf-8"
    )
    out = tmp_path / "report.json"
    with grader_imports_isolated():
        status = main(
            ["run", str(folder), "--case", "single-mro-2007-page-134-pdf-1", "--parallel", "2",
             "--report-json", str(out), "--quiet"]
        )  # fmt: skip
    report = read_report(out)
    assert status == 0
    assert report.models == ["ollama:qwen2.5:7b", "openai:convfinqa-oracle"]
    assert [r.model for r in report.results] == report.models
    assert all(r.passed for r in report.results)
    assert report.model_summaries["ollama:qwen2.5:7b"].passed_turns > 0


async def test_repeats_mark_a_flaky_turn_and_compare_lists_its_dropped_rate_as_a_regression(
    tmp_path: Path, fake_openai: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two stored `--repeat 2` runs: turn 0 passes 2/2, then 1/2 — the second run marks it
    flaky; its rate dropped, so `compare` (previous against latest) lists it as a regression,
    but a turn that both passed and failed is flaky and never fails the gate on its own
    (docs/running.md, "Flaky turns and the significance gate"): exit 0."""
    path = write_agent(tmp_path)
    env = child_env(tmp_path, OPENAI_API_KEY=OPENAI_KEY, OPENAI_BASE_URL=fake_openai.base_url)
    report_path = tmp_path / "report.json"
    for first_answers in (("7", "7"), ("7", "8")):
        # Right, then (the second time) wrong on turn 0: every other session answers right.
        fake_openai.script(
            openai.Reply(text=first_answers[0]), openai.Reply(text="15"),
            openai.Reply(text=first_answers[1]), openai.Reply(text="15"),
        )  # fmt: skip
        finished = await run_cli(
            [str(path), "--repeat", "2", "--parallel", "1", "-v", "--report-json",
             str(report_path)],
            env,
            tmp_path,
        )  # fmt: skip
        assert finished.status in (0, 1), finished.err
    repeats_mark_a_turn_that_passed_once_in_two_as_flaky(finished, report_path)
    capsys.readouterr()
    assert main(["compare", "--agent", str(path), "--format", "json"]) == 0
    comparison = json.loads(capsys.readouterr().out)
    [change] = comparison["changes"]
    assert (change["kind"], change["turn_index"], change["flaky"]) == ("regression", 0, True)
    assert (change["base"]["passes"], change["base"]["runs"]) == (2, 2)
    assert (change["head"]["passes"], change["head"]["runs"]) == (1, 2)
