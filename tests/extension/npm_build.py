"""Building the VS Code extension with the real tools (npm ci from the committed lockfile,
`vsce package`), shared by the extension's own tests and the end-to-end tests that install the
.vsix into a real VS Code. Failures are test failures that show npm's output.

The build runs in a copy of vscode-extension/ under the session's temporary folder: `npm ci`,
`tsc` and `vsce package` write node_modules/, out/, dist/ and the .vsix, and none of that may
land in the checkout (tests/checkout_guard.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.server.lsp_client import installed_server

REPO = Path(__file__).resolve().parents[2]
EXTENSION = REPO / "vscode-extension"


def npm() -> str:
    found = shutil.which("npm")
    if found is None:
        pytest.fail(
            "npm is not on PATH: install Node.js 20 (with npm) to build and test the VS Code "
            "extension in vscode-extension/"
        )
    return found


def run_npm(*args: str, cwd: Path, timeout: int = 600) -> str:
    env = {**os.environ, "HOLODECK_LSP": installed_server(), "CI": os.environ.get("CI", "true")}
    try:
        done = subprocess.run(
            [npm(), *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as error:
        command = " ".join(args)
        pytest.fail(f"`npm {command}` timed out after {timeout}s:\n{error.stdout}\n{error.stderr}")
    output = f"{done.stdout}\n{done.stderr}"
    if done.returncode != 0:
        pytest.fail(f"`npm {' '.join(args)}` in {cwd} failed (exit {done.returncode}):\n{output}")
    return output


def vsix_path(folder: Path) -> Path:
    package = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    return folder / f"{package['name']}-{package['version']}.vsix"


#: What a build (or a developer's own build in the checkout) leaves in vscode-extension/.
BUILD_OUTPUTS = shutil.ignore_patterns("node_modules", "out", "dist", "*.vsix")


def package_extension(into: Path) -> dict[str, str]:
    """A copy of vscode-extension/ (its sources only) at `into`, then `npm ci` and `npm run
    package` there; their outputs, the copy (`folder`) and the .vsix path (`vsix`)."""
    shutil.copytree(EXTENSION, into, ignore=BUILD_OUTPUTS)
    vsix = vsix_path(into)
    outputs = {"ci": run_npm("ci", "--no-audit", "--no-fund", cwd=into)}
    outputs["package"] = run_npm("run", "package", cwd=into)
    if not vsix.is_file():
        pytest.fail(f"`npm run package` did not write {vsix.name}:\n{outputs['package']}")
    outputs["folder"] = str(into)
    outputs["vsix"] = str(vsix)
    return outputs
