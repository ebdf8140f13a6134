"""Building the VS Code extension with the real tools (npm ci from the committed lockfile,
`vsce package`), shared by the extension's own tests and the end-to-end tests that install the
.vsix into a real VS Code. Failures are test failures that show npm's output."""

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


def run_npm(*args: str, cwd: Path = EXTENSION, timeout: int = 600) -> str:
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


def vsix_path() -> Path:
    package = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    return EXTENSION / f"{package['name']}-{package['version']}.vsix"


def package_extension() -> dict[str, str]:
    """`npm ci` and `npm run package` from scratch (an old .vsix is removed first); their
    outputs and the .vsix path (`vsix`)."""
    vsix = vsix_path()
    vsix.unlink(missing_ok=True)
    outputs = {"ci": run_npm("ci", "--no-audit", "--no-fund")}
    outputs["package"] = run_npm("run", "package")
    if not vsix.is_file():
        pytest.fail(f"`npm run package` did not write {vsix.name}:\n{outputs['package']}")
    outputs["vsix"] = str(vsix)
    return outputs
