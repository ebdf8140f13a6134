"""The console script runs none of a workspace's code unless told to (docs/checks.md, "What can
run your code"): every subcommand but `run` — read from cli.py's command table and the
completion scripts' hidden commands, so a command added later must be listed here or this
test fails — is run as the real `holodeck-lsp` process in a hostile workspace
(tests/hostile/untrusted_code.py) with stored runs, and leaves no marker. `check --trust`
does import the graders: the workspace is hostile indeed."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable

import pytest

from holodeck_lsp.cli import COMMANDS, LEGACY_FLAGS
from holodeck_lsp.commands.shell_completion import HIDDEN_COMMANDS
from tests.hostile.untrusted_code import HostileWorkspace, make_workspace, write_agent
from tests.importers.bfcl_support import FIXTURE
from tests.importers.convfinqa_records import record, write_source
from tests.server.lsp_client import installed_server
from tests.server.runs.stored_history import make_history

pytestmark = pytest.mark.slow  # a console script per command line, and three stored runs

#: The commands meant to run the agent's code (docs/checks.md says when and how).
RUNS_THE_AGENT = {"run"}
_Lines = Callable[[HostileWorkspace], list[list[str]]]


def _import_lines(workspace: HostileWorkspace) -> list[list[str]]:
    """A ConvFinQA file, and a BFCL source whose package `__init__` leaves a marker."""
    sources = workspace.root.parent / "sources"
    sources.mkdir(exist_ok=True)
    convfinqa = write_source(sources, [record("r1")])
    bfcl = sources / "bfcl"
    shutil.copytree(FIXTURE, bfcl, dirs_exist_ok=True)
    marker = workspace.markers / "bfcl_package"
    (bfcl / "bfcl_eval" / "__init__.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('imported')\n",
        encoding="utf-8",
    )
    return [
        ["import", "convfinqa", str(convfinqa), "--out", "imported-convfinqa"],
        ["import", "bfcl", str(bfcl), "--n", "1", "-o", "imported-bfcl"],
    ]


#: Each command that does not run the agent -> the command lines it is run with.
COMMAND_LINES: dict[str, _Lines] = {
    "check": lambda w: [
        ["check", "."],
        ["check", "agent.yaml", "--format", "json"],
        ["check", ".", "--format", "sarif", "--strict"],
        ["check", ".", "--format", "github"],
        ["check", ".", "--diff"],
        ["check", "other_cases.yaml", "other.agent.yaml"],
    ],
    "serve": lambda w: [["serve"]],  # stdin at its end: the server starts and leaves
    "schema": lambda w: [["schema"]],
    "report": lambda w: [
        ["report", "latest"],
        ["report", "latest", "--md", "report.md", "--html", "report.html"],
        ["report", "previous", "--baseline", "bad", "--agent", "agent.yaml"],
    ],
    "runs": lambda w: [["runs"], ["runs", "agent.yaml", "--json"], ["runs", "--tag", "kept"]],
    "compare": lambda w: [
        ["compare"],
        ["compare", "bad", "latest", "--format", "markdown"],
        ["compare", "--baseline", "bad", "--format", "json", "--agent", "agent.yaml"],
        ["compare", "bad", "latest", "--html", "compared.html"],
    ],
    "merge": lambda w: [["merge", "bad", "latest", "--agent", "agent.yaml", "--no-save"]],
    "import": _import_lines,
    "completion": lambda w: [["completion", shell] for shell in ("bash", "zsh", "fish")],
    "__case-names": lambda w: [["__case-names", "."]],
    "__run-refs": lambda w: [
        ["__run-refs", "--", "compare", ""],
        ["__run-refs", "--describe", "--", "report", "l"],
    ],
    "__models": lambda w: [["__models", "--", "run", "--model", ""]],
    # The old flags, each as its command.
    "--check": lambda w: [["--check", "."]],
    "--schema": lambda w: [["--schema"]],
}


def _run(workspace: HostileWorkspace, line: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [installed_server(), *line],
        cwd=workspace.root,
        env=workspace.env(dict(os.environ)),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> HostileWorkspace:
    """The hostile workspace with runs stored by the real CLI of an agent with its cases."""
    workspace = make_workspace(tmp_path_factory.mktemp("untrusted-cli"), agent=False)
    make_history(workspace.root)
    write_agent(workspace)
    workspace.clear()
    return workspace


def test_every_command_but_run_is_listed() -> None:
    names = {command.name for command in COMMANDS} | set(HIDDEN_COMMANDS) | set(LEGACY_FLAGS)
    names -= {"--stdio", "--tcp"}  # `serve` under its old names: a server, driven as `serve`
    unlisted = sorted(names - RUNS_THE_AGENT - COMMAND_LINES.keys())
    assert not unlisted, f"add command lines for {unlisted} to COMMAND_LINES"
    assert not (COMMAND_LINES.keys() - names), "COMMAND_LINES names a command cli.py lacks"


def test_no_command_but_run_runs_workspace_code(stored: HostileWorkspace) -> None:
    stored.clear()
    for lines in COMMAND_LINES.values():
        for line in lines(stored):
            done = _run(stored, line)
            assert "Traceback" not in done.stderr, (line, done.stderr)
            assert stored.imported() == [], f"`holodeck-lsp {' '.join(line)}` ran workspace code"


def test_check_with_trust_does_import_the_graders(stored: HostileWorkspace) -> None:
    """The control: the markers work, and `--trust` is the one way `check` imports."""
    stored.clear()
    done = _run(stored, ["check", "--trust", "."])
    assert done.returncode == 0, done.stdout + done.stderr
    assert stored.imported() == ["grader", "package_init", "package_module", "path_only"]
    stored.clear()
