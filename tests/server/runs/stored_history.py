"""A run history stored by the real CLI, shared by the editors' regression tests (pytest-lsp in
test_regressions.py, headless Neovim in tests/editors/): `holodeck-lsp run --replay` of
run_suite's suite with its cassette (every graded turn passes but turn 1 of `two-turns`) and
with a "bad" cassette (turn 0 of `two-turns` and the `single` case answer wrong).

`make_history` stores run 1 bad (tagged `bad`), run 2 good, run 3 bad: the latest run regressed
`two-turns` turn 0 and `single` turn 0 against the one before."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.server.runs.run_suite import CASSETTE, write_suite

REPO = Path(__file__).resolve().parents[3]
#: Names the server's tests may set to a secret: the CLI runs that store the history never
#: knew it (so a stored report may hold it unmasked, as a real one could).
SECRET_NAMES = ("EDITOR_BASELINE_TOKEN",)


def bad_cassette(extra: str = "") -> dict[str, Any]:
    """The suite's cassette answering `two-turns` turn 0 and `single` wrongly; turn 1 of
    `two-turns` fails too, for another reason than in the good cassette (`extra` is appended
    to its answer, e.g. a planted secret)."""
    bad = copy.deepcopy(CASSETTE)
    bad["cases"][0]["turns"][0]["response"] = "11"
    bad["cases"][0]["turns"][1]["response"] = "5" + extra
    bad["cases"][0]["turns"][1]["tool_calls"][0]["args"]["b"] = 5
    bad["cases"][1]["turns"][0]["response"] = "8"
    return bad


def cli(root: Path, *arguments: str, env: dict[str, str] | None = None) -> str:
    """`python -m holodeck_lsp ARGUMENTS` in `root` with this checkout's code; its stdout.
    Exit 0 or 1 (a run with failures) is expected, anything else fails the test."""
    environment = {**(env if env is not None else os.environ), "PYTHONPATH": str(REPO)}
    for name in SECRET_NAMES:
        environment.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-m", "holodeck_lsp", *arguments],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def stored_ids(root: Path) -> list[str]:
    """The ids of the stored runs of `root/agent.yaml`, oldest first (`holodeck-lsp runs`)."""
    listing = json.loads(cli(root, "runs", "--json", "agent.yaml"))
    runs = listing["runs"] if isinstance(listing, dict) else listing
    return [entry["id"] for entry in runs]


def make_history(root: Path, extra: str = "") -> Path:
    """Write the suite into `root` and store bad, good, bad (the first tagged `bad`); `extra`
    as in `bad_cassette`. Returns `root`."""
    write_suite(root)
    (root / "bad.cassette.json").write_text(json.dumps(bad_cassette(extra)))
    for cassette in ("bad.cassette.json", "run.cassette.json", "bad.cassette.json"):
        cli(root, "run", "agent.yaml", "--replay", cassette, "--quiet")
    first = stored_ids(root)[0]
    cli(root, "runs", "agent.yaml", "--tag", "bad", first)
    return root
