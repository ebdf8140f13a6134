"""Model matrices and repeats without a network: parsing `--model`, switching an agent's model,
the `models:` config file, the refusals, the pool of (case, model, repeat) work items in the
executor (in-process scripted backends), pass rates and the summary table."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from holodeck_lsp.commands.console.matrix_table import matrix_lines
from holodeck_lsp.commands.console.results_list import results_lines
from holodeck_lsp.engine.repeat_rates import Rate, model_rates, turn_rates
from holodeck_lsp.runner.execution.executor import Lane, RunOptions, run_lanes, run_suite
from holodeck_lsp.runner.models.model_matrix import (
    ModelRef,
    ModelSpecError,
    missing_extra,
    parse_model,
    parse_models,
    with_model,
)
from holodeck_lsp.runner.models.run_models import RunModelsError, resolve_run_models
from holodeck_lsp.schema.llm import Provider
from holodeck_lsp.settings.models_config import ModelsConfigError, configured_models
from tests.runner.fake_backend import FakeBackend, Reply, multi_turn_cases, usage, write_agent

# -- parsing ----------------------------------------------------------------------------------


def test_a_model_string_is_provider_colon_name_and_the_name_may_hold_colons() -> None:
    assert parse_model("ollama:qwen2.5:7b") == ModelRef(Provider.OLLAMA, "qwen2.5:7b")
    assert parse_model(" Anthropic:claude-sonnet-4-5 ").label == "anthropic:claude-sonnet-4-5"


def test_an_unknown_provider_lists_the_providers_and_suggests_the_closest() -> None:
    with pytest.raises(ModelSpecError) as raised:
        parse_model("opnai:gpt-4o")
    message = str(raised.value)
    assert message.startswith("--model 'opnai:gpt-4o' names no known provider 'opnai'")
    assert "did you mean openai:gpt-4o?" in message
    assert "openai, azure_openai, anthropic, ollama" in message
    with pytest.raises(ModelSpecError, match="did you mean azure_openai:dep"):
        parse_model("azure:dep")


def test_a_model_without_its_name_says_how_to_write_it() -> None:
    with pytest.raises(ModelSpecError, match=r"has no model name: write PROVIDER:NAME, e\.g\."):
        parse_model("openai")
    with pytest.raises(ModelSpecError, match="no model name after the colon: write anthropic:NAME"):
        parse_model("anthropic:")
    with pytest.raises(ModelSpecError, match="is not PROVIDER:NAME"):
        parse_model("gpt-4o")


def test_the_same_model_twice_is_refused() -> None:
    with pytest.raises(ModelSpecError, match="openai:gpt-4o is given twice"):
        parse_models(["openai:gpt-4o", "anthropic:c", "OpenAI:gpt-4o"])


def test_installed_sdks_are_found_without_importing_them() -> None:
    # The shared environment has both extras (CI installs `dev`).
    assert missing_extra(Provider.OPENAI) is None
    assert missing_extra(Provider.ANTHROPIC) is None


# -- switching the agent's model --------------------------------------------------------------


def _agent(tmp_path: Path, model_extra: str = "") -> object:
    return write_agent(tmp_path, multi_turn_cases(1, 1), model_extra=model_extra)


def test_the_same_provider_keeps_every_setting_but_the_name(tmp_path: Path) -> None:
    agent = write_agent(
        tmp_path,
        multi_turn_cases(1, 1),
        model_extra='  temperature: 0.1\n  endpoint: "http://gw.test/v1"\n',
    )
    switched = with_model(agent, ModelRef(Provider.OPENAI, "gpt-4o"))
    assert switched.model.name == "gpt-4o"
    assert switched.model.endpoint == "http://gw.test/v1"
    assert switched.model.temperature == 0.1
    assert agent.model.name == "gpt-4o-mini"  # the original is untouched


def test_another_provider_keeps_sampling_and_takes_its_connection_from_providers(
    tmp_path: Path,
) -> None:
    agent = write_agent(
        tmp_path,
        multi_turn_cases(1, 1),
        model_extra='  temperature: 0.0\n  max_tokens: 77\n  endpoint: "http://openai.test/v1"\n',
    )
    claude = with_model(agent, ModelRef(Provider.ANTHROPIC, "claude-x"))
    assert (claude.model.provider, claude.model.name) == (Provider.ANTHROPIC, "claude-x")
    assert (claude.model.temperature, claude.model.max_tokens) == (0.0, 77)
    assert claude.model.endpoint is None  # openai's endpoint is not anthropic's
    providers = {"local": {"provider": "ollama", "endpoint": "http://gpu.test:11434"}}
    ollama = with_model(agent, ModelRef(Provider.OLLAMA, "qwen"), providers)
    assert ollama.model.endpoint == "http://gpu.test:11434"


def test_azure_without_an_endpoint_anywhere_says_where_to_set_it(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(1, 1))
    with pytest.raises(ModelSpecError, match=r"azure_openai:dep cannot be used: .*providers:"):
        with_model(agent, ModelRef(Provider.AZURE_OPENAI, "dep"))


# -- the models: config -----------------------------------------------------------------------


def test_models_come_from_the_project_file_before_the_users(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".holodeck").mkdir(parents=True)
    project.mkdir()
    (home / ".holodeck" / "holodeck-lsp.yaml").write_text("models:\n  - openai:a\n")
    assert configured_models(project, home) is not None
    assert configured_models(project, home).models == ("openai:a",)  # type: ignore[union-attr]
    (project / "holodeck-lsp.yaml").write_text("models:\n  - openai:b\n  - ollama:c\n")
    found = configured_models(project, home)
    assert found is not None and found.models == ("openai:b", "ollama:c")
    assert found.source == project / "holodeck-lsp.yaml"
    assert configured_models(tmp_path / "elsewhere", tmp_path / "nohome") is None


def test_a_bad_models_list_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "holodeck-lsp.yaml").write_text("models: openai:a\n")
    with pytest.raises(ModelsConfigError, match=r"holodeck-lsp.yaml: `models` must be a list"):
        configured_models(tmp_path, tmp_path / "home")
    (tmp_path / "holodeck-lsp.yaml").write_text("models:\n  - opnai:a\n")
    with pytest.raises(RunModelsError, match=r"holodeck-lsp.yaml: models: 'opnai:a' names no"):
        resolve_run_models(None, None, tmp_path, replaying=False, recording=False)


def test_command_line_models_replace_the_configured_ones(tmp_path: Path) -> None:
    (tmp_path / "holodeck-lsp.yaml").write_text('models: ["openai:a", "openai:b"]\n')
    configured = resolve_run_models(None, None, tmp_path, replaying=False, recording=False)
    assert [m.label for m in configured.models] == ["openai:a", "openai:b"]
    given = resolve_run_models(["ollama:c"], 2, tmp_path, replaying=False, recording=False)
    assert [m.label for m in given.models] == ["ollama:c"] and given.repeat == 2
    # A replay answers from its cassette: the configured list does not apply.
    assert resolve_run_models(None, None, tmp_path, replaying=True, recording=False).models == ()


@pytest.mark.parametrize(
    ("models", "repeat", "replaying", "recording", "message"),
    [
        (None, 0, False, False, "--repeat 0: the number of sessions per case must be at least 1"),
        (["openai:a"], None, True, False, "--replay answers from a cassette recorded with one"),
        (None, 3, True, False, "--repeat with --replay: a cassette gives the same answer"),
        (["openai:a", "ollama:b"], None, False, True, "--record with 2 models: a cassette holds"),
        (None, 2, False, True, "--record with 2 repeats"),
    ],
)
def test_combinations_that_cannot_work_are_refused_with_the_reason(
    tmp_path: Path,
    models: list[str] | None,
    repeat: int | None,
    replaying: bool,
    recording: bool,
    message: str,
) -> None:
    with pytest.raises(RunModelsError) as raised:
        resolve_run_models(models, repeat, tmp_path, replaying=replaying, recording=recording)
    assert str(raised.value).startswith(message)


def test_recording_one_given_model_is_allowed(tmp_path: Path) -> None:
    one = resolve_run_models(["openai:a"], 1, tmp_path, replaying=False, recording=True)
    assert [m.label for m in one.models] == ["openai:a"]


# -- the executor's pool of (case, model, repeat) ---------------------------------------------


def _lanes(tmp_path: Path, *backends: FakeBackend) -> tuple[list[Lane], object]:
    agent = write_agent(tmp_path, multi_turn_cases(3, 2))
    labels = ["openai:m1", "anthropic:m2", "ollama:m3"]
    return [Lane(agent, backend, model=labels[n]) for n, backend in enumerate(backends)], agent


def test_every_case_runs_once_per_model_in_one_pool(tmp_path: Path) -> None:
    slow = Reply(response="ok", delay=0.02, usage=usage(10, 2))
    first, second = FakeBackend(default=slow), FakeBackend(default=slow)
    lanes, _ = _lanes(tmp_path, first, second)
    report = asyncio.run(run_lanes(lanes, tmp_path, options=RunOptions(parallel=4)))
    assert report.models == ["openai:m1", "anthropic:m2"]
    assert [(r.model, r.test_name) for r in report.results] == [
        ("openai:m1", "c0"), ("openai:m1", "c1"), ("openai:m1", "c2"),
        ("anthropic:m2", "c0"), ("anthropic:m2", "c1"), ("anthropic:m2", "c2"),
    ]  # fmt: skip
    assert all(r.repeat is None for r in report.results)
    assert len(first.sessions) == len(second.sessions) == 3
    # Four slots shared by both models: both models had sessions open at the same time.
    assert first.max_open + second.max_open > 2
    assert set(report.model_summaries) == {"openai:m1", "anthropic:m2"}
    assert report.model_summaries["openai:m1"].total_tests == 3
    assert report.summary.total_tests == 6
    assert report.environment["backend"] == "FakeBackend"
    assert "wall_time_ms:openai:m1" in report.environment


def test_the_parallel_limit_covers_models_and_repeats_together(tmp_path: Path) -> None:
    slow = Reply(response="ok", delay=0.01)
    backends = [FakeBackend(default=slow) for _ in range(3)]
    lanes, _ = _lanes(tmp_path, *backends)
    opened: list[int] = []

    class Watch:
        def case_started(self, case: object) -> None:
            opened.append(sum(b.open - sum(s.closed for s in b.sessions) for b in backends))

        def turn_finished(self, case: object, turn: object) -> None: ...

        def case_finished(self, case: object, result: object) -> None: ...

    report = asyncio.run(
        run_lanes(lanes, tmp_path, repeat=2, options=RunOptions(parallel=2), progress=Watch())
    )
    assert len(report.results) == 3 * 3 * 2
    assert max(opened) <= 2
    assert sorted({r.repeat for r in report.results}) == [1, 2]


def test_a_plain_run_names_its_model(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(1, 1))
    report = asyncio.run(run_suite(agent, tmp_path, FakeBackend()))
    assert report.models == ["openai:gpt-4o-mini"] and report.repeats == 1
    assert report.results[0].model == "openai:gpt-4o-mini" and report.results[0].repeat is None


def test_a_flaky_backend_gives_a_half_pass_rate(tmp_path: Path) -> None:
    agent = write_agent(
        tmp_path,
        '  - name: sum\n    turns:\n      - {input: "1+1", ground_truth: "2"}\n'
        '      - {input: "2+2", ground_truth: "4"}\n',
        extra="evaluations:\n  metrics:\n    - {type: standard, metric: equality}\n",
    )

    class EveryOther(FakeBackend):
        """Right on the first session, wrong on turn 0 of the second."""

        async def create_session(self):  # type: ignore[no-untyped-def]
            session = await super().create_session()
            self.replies = {
                "1+1": Reply("2" if session.number % 2 == 0 else "3"),
                "2+2": Reply("4"),
            }
            return session

    report = asyncio.run(
        run_lanes([Lane(agent, EveryOther())], tmp_path, repeat=2, options=RunOptions(parallel=1))
    )
    rates = turn_rates(report.results)
    assert rates[("openai:gpt-4o-mini", 0, 0)] == Rate(1, 2)
    assert rates[("openai:gpt-4o-mini", 0, 0)].flaky
    assert rates[("openai:gpt-4o-mini", 0, 1)] == Rate(2, 2)
    (figures,) = model_rates(report.results)
    assert (figures.pass_at_1, figures.passed_all, figures.flaky_turns) == (0.5, 0, 1)
    table = "\n".join(matrix_lines(report, verbose=True))
    assert "Matrix (2 repeats):" in table
    assert "✗ 1/2 ~ flaky" in table and "✓ 2/2" in table
    assert "pass@1" in table and "passed in all 2" in table


def test_the_matrix_table_has_a_column_per_model_and_totals(tmp_path: Path) -> None:
    good = FakeBackend(default=Reply("ok", usage=usage(5, 1)))
    bad = FakeBackend(default=Reply("ok", error=RuntimeError("model down")))
    lanes, _ = _lanes(tmp_path, good, bad)
    report = asyncio.run(run_lanes(lanes, tmp_path, options=RunOptions(parallel=2)))
    lines = matrix_lines(report, verbose=True)
    header = next(line for line in lines if line.startswith("Matrix"))
    assert "openai:m1" in header and "anthropic:m2" in header
    row = next(line for line in lines if line.strip().startswith("c1"))
    assert row.split()[1:] == ["✓", "✗"]
    assert any(line.strip().startswith("turn 1") for line in lines)
    totals = {line.split()[0]: line for line in lines if line.strip()}
    assert "3/3" in totals["cases"] and "0/3" in totals["cases"]
    assert "36" in totals["agent"]  # 6 turns x 6 tokens for the first model
    assert "wall" in totals
    # Below the table: why each failed session failed, naming its model.
    summary = results_lines(report)
    failures = summary[summary.index("Failures:") + 1 :]
    failed = [line.split() for line in failures if line.startswith("  FAILED")]
    assert failed == [["FAILED", name, "[anthropic:m2]"] for name in ("c0", "c1", "c2")]
    assert "model down" in failures[1]


# -- the command line's refusals (in process: nothing starts) ---------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "opnai:gpt-4o"], "names no known provider 'opnai' — did you mean openai"),
        (["--model", "openai"], "'openai' has no model name"),
        (["--model", "openai:a", "--model", "openai:a"], "openai:a is given twice"),
        (["--repeat", "0"], "--repeat 0: the number of sessions per case must be at least 1"),
        (["--model", "openai:a", "--replay", "c.json"], "--replay answers from a cassette"),
        (["--model", "openai:a", "--model", "ollama:b", "--record", "c.json"], "--record with 2"),
    ],
)
def test_bad_model_arguments_exit_2_with_the_cause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    from holodeck_lsp.cli import main

    write_agent(tmp_path, multi_turn_cases(1, 1))
    status = main(["run", str(tmp_path / "agent.yaml"), *args])
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith("holodeck-lsp: error: "), err
    assert message in err
