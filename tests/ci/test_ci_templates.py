"""The CI templates we ship: the GitHub Actions workflow in docs/ci/ parses, runs our real
commands, and docs/cli.md includes it verbatim; the pre-commit hook definition is valid."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from holodeck_lsp.cli import main

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "docs" / "ci" / "holodeck-check.yml"


def load(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def test_the_workflow_is_a_valid_github_actions_file_that_uploads_sarif() -> None:
    workflow = load(WORKFLOW)
    # YAML 1.1 reads the key `on` as True; GitHub reads it as "on".
    triggers = workflow.get("on", workflow.get(True))
    assert set(triggers) == {"push", "pull_request"}
    assert workflow["permissions"]["security-events"] == "write"
    steps = workflow["jobs"]["check"]["steps"]
    uses = [step.get("uses", "") for step in steps]
    assert "actions/checkout@v4" in uses
    upload = next(step for step in steps if step.get("uses", "").startswith("github/codeql"))
    assert upload["if"] == "always()"
    runs = [step["run"] for step in steps if "run" in step]
    sarif_run = next(run for run in runs if "--format sarif" in run)
    assert upload["with"]["sarif_file"] in sarif_run
    assert any("--format github" in run for run in runs)


def test_every_holodeck_command_of_the_workflow_parses(capsys: Any) -> None:
    for step in load(WORKFLOW)["jobs"]["check"]["steps"]:
        run = step.get("run", "")
        if not run.startswith("holodeck-lsp "):
            continue
        argv = shlex.split(run)[1:]
        # `--help` after the command checks the options are all known without running it.
        assert main([*argv[:1], "--help"]) == 0
        from holodeck_lsp.commands.check import parser

        parser().parse_intermixed_args(argv[1:])  # raises SystemExit on an unknown option
    capsys.readouterr()


def test_cli_docs_include_the_workflow_verbatim() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- ci/holodeck-check.yml -->\n```yaml\n(.*?)```\n", text, re.S)
    assert block is not None, "docs/cli.md must include docs/ci/holodeck-check.yml"
    assert block.group(1) == WORKFLOW.read_text(encoding="utf-8")


def test_the_pre_commit_hook_definition() -> None:
    (hook,) = load(ROOT / ".pre-commit-hooks.yaml")
    assert hook["id"] == "holodeck-check"
    assert hook["entry"] == "holodeck-lsp check"
    assert hook["language"] == "python"
    files = re.compile(hook["files"])
    for name in ("agent.yaml", "agents/x/agent.yaml", "support.agent.yaml"):
        assert files.search(name), name
    for name in ("config.yaml", "agent.yaml.bak", "myagent.yaml", "cases.yaml"):
        assert not files.search(name), name
