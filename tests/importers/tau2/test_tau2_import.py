"""`import tau2` on the committed fixture (a trimmed τ² checkout): which domains import and
why the others do not, the agent files in the simulated-user shape (docs/simulated-users.md),
the policy and the user scenario as τ² words them, and the files copied with τ²'s licence."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from holodeck_lsp.importers.tau2.errors import ImportInputError
from holodeck_lsp.importers.tau2.importer import ImportedSuite, Selection, import_tau2
from tests.importers.tau2.tau2_support import FIXTURE


@pytest.fixture(scope="module")
def suite() -> ImportedSuite:
    return import_tau2(FIXTURE, Selection())


def _yaml(suite: ImportedSuite, name: str) -> Any:
    return YAML(typ="safe").load(suite.files[name].decode("utf-8"))


def test_every_domain_the_checkout_has_whole_imports_and_airline_says_what_it_lacks(
    suite: ImportedSuite,
) -> None:
    assert sorted(suite.cases) == ["mock", "retail", "telecom"]
    assert suite.cases["retail"] == ["retail_0", "retail_2", "retail_5"]
    [airline] = [w for w in suite.warnings if w.startswith("airline")]
    assert "data/tau2/domains/airline/db.json absent" in airline
    assert "the other domains still import" in airline
    assert any("tasks_small.json instead" in w for w in suite.warnings)
    # mock's task that starts from a recorded conversation cannot be replayed by a simulator
    assert any("update_task_with_message_history" in line for line in suite.passed_over)


def test_airline_alone_is_refused_naming_the_missing_file_and_what_still_imports() -> None:
    with pytest.raises(ImportInputError) as caught:
        import_tau2(FIXTURE, Selection(domains=("airline",)))
    message = str(caught.value)
    assert "airline: data/tau2/domains/airline/db.json absent" in message
    assert "retail, telecom, mock import from this checkout" in message


def test_a_folder_that_is_no_checkout_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ImportInputError, match="not a τ²-bench checkout"):
        import_tau2(tmp_path, Selection())


def test_each_task_is_a_simulated_user_graded_at_the_end(suite: ImportedSuite) -> None:
    agent = _yaml(suite, "retail.agent.yaml")
    assert agent["instructions"] == {"file": "prompts/retail_agent.md"}
    cases = {case["name"]: case for case in agent["test_cases"]}
    simulated = cases["retail_0"]["simulated_user"]
    assert set(simulated) == {"instructions", "model", "max_turns", "at_end"}
    assert simulated["model"] == {"provider": "openai", "name": "gpt-4.1-mini", "temperature": 0}
    assert simulated["at_end"]["evaluations"] == [
        {"type": "code", "grader": "tau2_grader:tau2_reward", "name": "tau2_reward"}
    ]
    # τ²'s user prompt: the global guidelines, then the task's scenario
    instructions = simulated["instructions"]
    assert instructions.startswith("# User Simulation Guidelines")
    assert "<scenario>\nPersona:" not in instructions  # task 0 has no persona
    assert "Known info:\n\t\tYou are Yusuf Rossi in zip code 19122." in instructions
    assert instructions.endswith("</scenario>")
    # task 2 asks for an NL assertion (its basis names NL_ASSERTION): a judged metric
    judged = cases["retail_2"]["simulated_user"]["at_end"]["evaluations"][1]
    assert judged["type"] == "geval" and judged["strict_mode"] is True
    assert "10 t-shirt options" in judged["criteria"]
    # task 2's communicate_info is not in its reward basis: τ² does not count it, nor do we
    assert "communicate_info" not in cases["retail_2"]["simulated_user"]["at_end"]


def test_communicate_info_is_written_where_the_reward_basis_counts_it(
    suite: ImportedSuite,
) -> None:
    agent = _yaml(suite, "mock.agent.yaml")
    cases = {case["name"]: case["simulated_user"]["at_end"] for case in agent["test_cases"]}
    raw = json.loads(FIXTURE.joinpath("data/tau2/domains/mock/tasks.json").read_text("utf-8"))
    [task] = [t for t in raw if t["id"] == "update_task_with_initialization_data"]
    expected = task["evaluation_criteria"]["communicate_info"]
    assert cases["mock_update_task_with_initialization_data"]["communicate_info"] == expected


def test_the_policy_is_the_agents_instructions_as_tau2s_agent_gets_it(
    suite: ImportedSuite,
) -> None:
    prompt = suite.files["prompts/retail_agent.md"].decode("utf-8")
    policy = FIXTURE.joinpath("data/tau2/domains/retail/policy.md").read_text("utf-8")
    assert prompt.startswith("<instructions>\nYou are a customer service agent")
    assert f"<policy>\n{policy}\n</policy>" in prompt
    telecom = suite.files["prompts/telecom_agent.md"].decode("utf-8")
    assert "<main_policy>" in telecom and "<tech_support_policy>" in telecom


def test_tools_are_the_domains_tools_with_tau2s_schemas(suite: ImportedSuite) -> None:
    agent = _yaml(suite, "retail.agent.yaml")
    tools = {tool["name"]: tool for tool in agent["tools"]}
    assert "exchange_delivered_order_items" in tools
    exchange = tools["exchange_delivered_order_items"]
    assert exchange["file"] == "tools_retail.py"
    assert exchange["parameters"]["item_ids"]["type"] == "array"
    assert exchange["parameters"]["item_ids"]["required"] is True
    source = suite.files["tools_retail.py"].decode("utf-8")
    compile(source, "tools_retail.py", "exec")
    assert "def exchange_delivered_order_items(" in source


def test_taus_code_and_licence_are_copied_and_the_data_keeps_taus_layout(
    suite: ImportedSuite,
) -> None:
    files = suite.files
    assert files["tau2_bench/LICENSE"].startswith(b"MIT License")
    assert b"Sierra Research" in files["tau2_bench/NOTICE"]
    assert "tau2_bench/src/tau2/evaluator/evaluator_env.py" in files
    data = "tau2_bench/data/tau2/domains"
    tasks = json.loads(files[f"{data}/retail/tasks.json"])
    assert [t["id"] for t in tasks] == ["0", "2", "5"]
    assert f"{data}/retail/db.json" in files and f"{data}/telecom/user_db.toml" in files
    assert not any("airline" in name for name in files if name.startswith(data))


def test_n_and_ids_choose_the_tasks() -> None:
    suite = import_tau2(FIXTURE, Selection(domains=("retail",), ids=frozenset({"2"})))
    assert suite.cases == {"retail": ["retail_2"]}
    assert "agent.yaml" in suite.files  # one domain: the usual file name


@pytest.mark.slow
def test_the_console_script_imports_and_warns(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    done = subprocess.run(
        [sys.executable, "-m", "holodeck_lsp", "import", "tau2", str(FIXTURE), "--out", str(out),
         "--domains", "retail,airline", "--user-model", "anthropic:claude-haiku-4-5"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "airline left out" in done.stderr
    assert "imported 3 τ² tasks (retail 3)" in done.stderr
    text = (out / "agent.yaml").read_text("utf-8")
    assert 'model: {provider: anthropic, name: "claude-haiku-4-5", temperature: 0}' in text
    again = subprocess.run(
        [sys.executable, "-m", "holodeck_lsp", "import", "tau2", str(FIXTURE), "--out", str(out)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert again.returncode == 2 and "--force" in again.stderr


def test_airline_tool_schemas_resolve_taus_model_references() -> None:
    """Airline's booking takes lists of τ²'s models (FlightInfo, Passenger, Payment): each
    parameter is declared alone, so its `$ref`s are written out in place."""
    from holodeck_lsp.importers.tau2.vendored import tool_specs

    specs = {spec.name: spec for spec in tool_specs("airline")}
    flights = specs["book_reservation"].parameters["flights"]
    assert "$ref" not in json.dumps(flights)
    [model, _] = flights["items"]["anyOf"]  # τ² accepts the model or a plain dict
    assert model["properties"]["flight_number"]["type"] == "string"
    assert "title" not in flights
