"""The sample's agent.yaml is clean under `--check`, with the model it ships and with each of
the alternatives its comments offer, and a broken grader path stops a run as a config error."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.cli import main
from tests.sample.sample_support import CASSETTE_PATH, SAMPLE_DIR, copy_sample, switch_model

CLEAN = "0 errors, 0 warnings"


@pytest.mark.parametrize("trust", [False, True], ids=["static", "trusted"])
def test_the_sample_checks_clean(trust: bool, capsys: pytest.CaptureFixture[str]) -> None:
    """Static checking reads graders.py without running it; --trust imports it in a child
    process, so this also proves the grader module imports and defines its callable."""
    args = ["--check", str(SAMPLE_DIR), *(["--trust"] if trust else [])]
    assert main(args) == 0
    assert CLEAN in capsys.readouterr().out


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_each_commented_alternative_model_checks_clean(
    provider: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The agent file tells users to switch backend by swapping a line; the swapped file must
    still be valid (the provider's rules differ: e.g. Claude-only keys, tool naming)."""
    folder = copy_sample(tmp_path)
    line = switch_model(folder / "agent.yaml", provider)
    assert line.startswith(f"model: {{provider: {provider}, ")
    assert main(["--check", str(folder), "--trust"]) == 0
    assert CLEAN in capsys.readouterr().out


def test_a_broken_grader_path_stops_the_run_as_a_config_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A metric whose grader does not exist is a config error (exit 2) found before any case
    runs, with the bad path and where it was looked for, in --check's format."""
    folder = copy_sample(tmp_path)
    agent = folder / "agent.yaml"
    text = agent.read_text(encoding="utf-8")
    assert text.count("graders:turn_program_equivalence") == 1
    agent.write_text(
        text.replace("graders:turn_program_equivalence", "graders:no_such_grader"),
        encoding="utf-8",
    )
    report = tmp_path / "report.json"

    status = main(
        ["run", str(folder), "--replay", str(CASSETTE_PATH), "--report-json", str(report)]
    )

    assert status == 2
    printed = capsys.readouterr()
    assert printed.out == ""
    [line] = [line for line in printed.err.splitlines() if ": error: " in line]
    assert line.startswith(f"{agent}:")
    assert "evaluations.metrics[1].grader" in line
    assert "module 'graders' has no attribute 'no_such_grader'" in line
    assert str(folder / "graders.py") in line
    assert line.endswith("[HD132]")
    assert not report.exists()  # the run never started
