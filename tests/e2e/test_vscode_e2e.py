"""The packaged extension in a real VS Code: code-server (VS Code 1.100) in headless Debian
Chromium driven by playwright-core, against this venv's holodeck-lsp, on a copy of the sample.

Each test runs one script of this folder (see README.md) and fails with its log. Heavy set-up,
cached between runs: code-server installed by install_code_server.sh into
~/.cache/holodeck-e2e (about 90 s the first time, 0.5 s after), playwright-core by `npm ci`
here, the .vsix built once per session (shared with tests/extension). Screenshots and logs of
every run, passed or failed, are kept in a temporary folder whose path every failure names
(`$HOLODECK_E2E_ARTIFACTS` to choose one, as CI does to upload them) — never in the checkout.

Skipped only when asked: HOLODECK_E2E=0. A missing tool (node, npm, Debian's chromium, the
packages install_code_server.sh needs) is a failure that says how to install it.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.e2e.vscode_host import HostError, shared_host
from tests.extension.npm_build import run_npm
from tests.server.lsp_client import installed_server

HERE = Path(__file__).resolve().parent
CHROMIUM = Path("/usr/bin/chromium")
#: One script's whole run; they take 20–40 s on 2 CPUs once code-server is installed.
SCRIPT_TIMEOUT = 300

pytestmark = pytest.mark.skipif(
    os.environ.get("HOLODECK_E2E", "1").strip() == "0", reason="HOLODECK_E2E=0: e2e skipped"
)


@functools.cache
def artifacts_dir() -> Path:
    """$HOLODECK_E2E_ARTIFACTS, else a folder of this test process's own under the system's
    temporary folder (kept after the session, so the screenshots can be looked at)."""
    chosen = os.environ.get("HOLODECK_E2E_ARTIFACTS", "").strip()
    if chosen:
        return Path(chosen)
    return Path(tempfile.mkdtemp(prefix="holodeck-e2e-artifacts-"))


@functools.cache
def playwright_core() -> None:
    """`npm ci` here once per process: playwright-core (no browser download)."""
    run_npm("ci", "--no-audit", "--no-fund", cwd=HERE)


@functools.cache
def code_server() -> str:
    """install_code_server.sh once per process (cached: 0.5 s once installed); the binary."""
    installed = subprocess.run(
        ["bash", str(HERE / "install_code_server.sh")],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    if installed.returncode != 0:
        pytest.fail(f"install_code_server.sh failed:\n{installed.stderr[-4000:]}")
    return installed.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def e2e(packaged_extension: dict[str, str]) -> dict[str, str]:
    """Everything the scripts need: the .vsix, code-server, playwright-core, the server. The
    scenarios run on one shared host (vscode_host.py; tests/e2e/conftest.py stops it)."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH: install Node.js 20 (or set HOLODECK_E2E=0)")
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} not found: apt-get install -y chromium (.ci/run does; or HOLODECK_E2E=0)"
        )
    playwright_core()
    return {
        "node": node,
        "vsix": packaged_extension["vsix"],
        "code_server": code_server(),
        "server": installed_server(),
    }


def run_script(e2e: dict[str, str], script: str, *extra: str) -> str:
    """Run the scenario `script` (with its own options `extra`) on the shared host, as
    `node tests/e2e/<script> …` would alone; its output, or the test fails with it."""
    common = [
        "--vsix", e2e["vsix"],
        "--code-server", e2e["code_server"],
        "--server-path", e2e["server"],
        "--chromium", str(CHROMIUM),
    ]  # fmt: skip
    try:
        host = shared_host(e2e["node"], common, artifacts_dir() / "vscode-host.log")
        passed, output = host.run(
            script, [*common, "--artifacts", str(artifacts_dir()), *extra], SCRIPT_TIMEOUT
        )
    except HostError as error:
        pytest.fail(f"{script}: {error} (screenshots and logs in {artifacts_dir()})")
    if not passed:
        pytest.fail(
            f"{script} failed (screenshots and logs in {artifacts_dir()}):\n{output[-6000:]}"
        )
    return output


def test_problems_hover_and_run_turn_lenses(e2e: dict[str, str]) -> None:
    """A planted broken regex in the Problems panel at its line with our message; hover on it
    and on `fuzzy`; "Run turn" lenses give ✗ / ✓ inline and in the Testing view; Ctrl+. on a
    misspelt `fuzy:` applies "Change to 'fuzzy'"; Ctrl+Space on `fu` completes `fuzzy: ""`."""
    output = run_script(e2e, "vscode_e2e.mjs")
    assert "PASS: Problems + hover on the planted fault" in output, output
    assert "quick fix Change to 'fuzzy', completion of `fu`" in output, output
    shots = artifacts_dir() / "holodeck-e2e" / "screenshots"
    assert (shots / "02-hover-regex.png").is_file() and (shots / "05-testing-view.png").is_file()
    assert (shots / "07-completion.png").is_file()


def test_runs_from_the_testing_view(e2e: dict[str, str]) -> None:
    """The gutter Run glyph, the Testing view's Run button and Run Test at Cursor: glyphs,
    inlay hints, the failure peek with its diff, the Problems panel, the Testing view."""
    output = run_script(e2e, "vscode_run_test.mjs")
    assert "PASS: run from the gutter" in output, output
    assert (artifacts_dir() / "holodeck-e2e-run" / "screenshots" / "03-failure-peek.png").is_file()


def test_navigation_rename_definition_references_and_semantic_colours(e2e: dict[str, str]) -> None:
    """F2 on a tool renames it in the agent and in its `test_cases_file` include (saved to
    disk); a matcher kind is coloured by the server's semantic tokens, unlike a YAML key;
    F12 on an expected tool's name opens tools.py on its `def`; Shift+F12 on the tool's
    `name:` peeks its declaration and every `expected_tools` entry, at their lines."""
    output = run_script(e2e, "vscode_navigation.mjs")
    assert "PASS: rename across the agent and its include" in output, output
    assert "PASS: Go to Definition on an expected tool, Go to References" in output, output
    shots = artifacts_dir() / "holodeck-e2e-nav" / "screenshots"
    assert (shots / "02-semantic-tokens.png").is_file()
    assert (shots / "03-definition.png").is_file() and (shots / "04-references.png").is_file()


def test_problems_lead_with_the_cause_and_typing_an_arg_is_no_error(e2e: dict[str, str]) -> None:
    """In a 1000 px window the Problems row of a broken regex shows "regex does not compile"
    inside its visible area; typing `extra: ` under `args:` in a file whose recording is opted
    in (holodeck.cassettePath) gives no error-severity diagnostic (panel and squiggles)."""
    output = run_script(e2e, "vscode_cause_first.mjs")
    assert "PASS: cause-first Problems row" in output, output
    shots = artifacts_dir() / "holodeck-e2e-cause" / "screenshots"
    assert (shots / "01-typed-extra.png").is_file()
    assert (shots / "02-problems-cause-first.png").is_file()


def test_run_progress_and_cancel(e2e: dict[str, str]) -> None:
    """A live run from a `Run case` lens against a slow model (slow_model_server.py, answers
    held back 300 s): its progress in the status bar while the model is asked; **HoloDeck:
    Cancel Run** from the palette says `Cancelling…` and ends it within 20 s — the model's
    request abandoned, every turn `– skipped` inline, skipped in the Testing view, `skipped:
    cancelled` in the Problems panel; a second Cancel Run says nothing is running. Then, in
    the same session, a simulated case run from the Testing view: its generated turns and the
    simulated user's failure are items of their own with their states, replaced by a rerun."""
    output = run_script(e2e, "vscode_cancel.mjs", "--python", sys.executable)
    assert "HoloDeck: Cancel Run ended it" in output, output
    assert "PASS: a simulated case's generated turns are Testing-view items" in output, output
    shots = artifacts_dir() / "holodeck-e2e-cancel" / "screenshots"
    assert (shots / "01-running.png").is_file() and (shots / "02-cancelled.png").is_file()
    assert (shots / "05-simulated-items.png").is_file()
