"""sample/tau2-retail: its offline oracle (scripts/tau2_oracle_server.py) over real HTTP plays
the scripted user and the agent of each case; the agent's calls run through the sample's own
tools_retail.py in the case's scope, and the at-end grader gives every case τ²'s reward 1.
The conversation loop is driven here as the shared contract describes it (the simulator sees
the roles flipped, its instructions as the system prompt, no tools; a stop marker ends it),
for `holodeck-lsp run` of a simulated user is built on another branch."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from holodeck_lsp.runner.agent_code.case_scope import CaseScope, entered_case
from tests.importers.tau2.tau2_support import end_context, suite_module

ROOT = Path(__file__).resolve().parents[2]
STOP = "###STOP###"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the sample (the suite and its scripts run from there)."""
    copy = tmp_path_factory.mktemp("samples") / "tau2-retail"
    shutil.copytree(ROOT / "sample" / "tau2-retail", copy)
    return copy


@pytest.fixture(scope="module")
def oracle_url(sample: Path) -> Iterator[str]:
    path = sample / "scripts" / "tau2_oracle_server.py"
    spec = importlib.util.spec_from_file_location(f"_tau2_oracle_{id(sample)}", path)
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being made
    spec.loader.exec_module(module)
    server = module.make_server("127.0.0.1", 0, module.Tau2Oracle(module.load_scripts()), True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1/chat/completions"
    finally:
        server.shutdown()
        server.server_close()


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        message: dict[str, Any] = json.loads(answer.read())["choices"][0]["message"]
        return message


def _converse(url: str, case: dict[str, Any], tools: ModuleType, offered: list[dict[str, Any]]):  # type: ignore[no-untyped-def]
    """One case's conversation: (the agent's tool invocations, its answers)."""
    from holodeck_lsp.schema.results import ToolInvocation

    instructions = case["simulated_user"]["instructions"]
    user_view: list[dict[str, Any]] = [{"role": "system", "content": instructions}]
    agent_view: list[dict[str, Any]] = [{"role": "system", "content": "policy"}]
    calls: list[ToolInvocation] = []
    answers: list[str] = []
    for _ in range(case["simulated_user"]["max_turns"]):
        said = _post(url, {"model": "oracle", "messages": user_view})["content"]
        if STOP in said:
            return calls, answers
        user_view.append({"role": "assistant", "content": said})
        agent_view.append({"role": "user", "content": said})
        while True:
            message = _post(url, {"model": "oracle", "messages": agent_view, "tools": offered})
            agent_view.append(message)
            if not message.get("tool_calls"):
                break
            for call in message["tool_calls"]:
                name, args = call["function"]["name"], json.loads(call["function"]["arguments"])
                result = getattr(tools, name)(**args)
                calls.append(ToolInvocation(name=name, args=args, result=result))
                agent_view.append({"role": "tool", "tool_call_id": call["id"], "content": result})
        answers.append(message["content"])
        user_view.append({"role": "user", "content": message["content"]})
    raise AssertionError("the scripted simulator never stopped")


@pytest.mark.slow
def test_the_oracle_conversations_earn_taus_reward_on_every_case(
    sample: Path, oracle_url: str
) -> None:
    agent = yaml.safe_load((sample / "agent.yaml").read_text("utf-8"))
    offered = [{"type": "function", "function": {"name": t["name"]}} for t in agent["tools"]]
    tools = suite_module(sample, "tools_retail")
    grader = suite_module(sample, "tau2_grader")
    names = []
    for index, case in enumerate(agent["test_cases"]):
        with entered_case(CaseScope(name=case["name"], index=index)):
            calls, answers = _converse(oracle_url, case, tools, offered)
            verdict = grader.tau2_reward(end_context(case["name"], calls, answers[-1]))
        assert verdict.passed is True, f"{case['name']}: {verdict.reason}"
        assert len(calls) == len(grader.tau2_state.task(case["name"]).evaluation_criteria.actions)
        names.append(case["name"])
    assert names == ["retail_0", "retail_2", "retail_5"]


@pytest.mark.slow
def test_a_conversation_without_the_write_fails_the_db_check(sample: Path) -> None:
    tools = suite_module(sample, "tools_retail")
    grader = suite_module(sample, "tau2_grader")
    with entered_case(CaseScope(name="retail_5", index=0)):
        task = grader.tau2_state.task("retail_5")
        reads = [a for a in task.evaluation_criteria.actions if a.name.startswith(("get", "find"))]
        from holodeck_lsp.schema.results import ToolInvocation

        calls = [
            ToolInvocation(
                name=a.name, args=a.arguments, result=getattr(tools, a.name)(**a.arguments)
            )
            for a in reads
        ]
        verdict = grader.tau2_reward(end_context("retail_5", calls))
    assert verdict.passed is False and "database differs" in verdict.reason
