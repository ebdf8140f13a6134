"""The VS Code extension (vscode-extension/) builds, type-checks, passes its unit tests and
packages into a .vsix that carries the bundle and nothing it should not.

Real tools, real files: `npm ci` from the committed lockfile, `tsc`, `node --test` (whose server
tests talk to this venv's `holodeck-lsp` through $HOLODECK_LSP), `vsce package`. One module
fixture runs the commands in order; each assertion is its own test."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXTENSION = REPO / "vscode-extension"
MAX_VSIX_BYTES = 2 * 1024 * 1024


def _npm() -> str:
    found = shutil.which("npm")
    if found is None:
        pytest.fail(
            "npm is not on PATH: install Node.js 20 (with npm) to build and test the VS Code "
            "extension in vscode-extension/"
        )
    return found


def _server() -> str:
    beside = Path(sys.executable).parent / "holodeck-lsp"
    if beside.exists():
        return str(beside)
    found = shutil.which("holodeck-lsp")
    if found is None:
        pytest.fail("holodeck-lsp is not installed (pip install -e '.[dev]')")
    return found


def _run(npm: str, *args: str, timeout: int = 600) -> str:
    env = {**os.environ, "HOLODECK_LSP": _server(), "CI": os.environ.get("CI", "true")}
    try:
        done = subprocess.run(
            [npm, *args],
            cwd=EXTENSION,
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
        pytest.fail(f"`npm {' '.join(args)}` failed (exit {done.returncode}):\n{output}")
    return output


@pytest.fixture(scope="module")
def built() -> dict[str, str]:
    """npm ci, typecheck, test and package, in that order; their outputs by step."""
    npm = _npm()
    package = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    vsix = EXTENSION / f"{package['name']}-{package['version']}.vsix"
    vsix.unlink(missing_ok=True)
    outputs = {
        "ci": _run(npm, "ci", "--no-audit", "--no-fund"),
        "typecheck": _run(npm, "run", "typecheck"),
        "test": _run(npm, "test"),
        "package": _run(npm, "run", "package"),
    }
    if not vsix.is_file():
        pytest.fail(f"`npm run package` did not write {vsix.name}:\n{outputs['package']}")
    outputs["vsix"] = str(vsix)
    return outputs


def test_unit_tests_ran_and_passed(built: dict[str, str]) -> None:
    output = built["test"]
    assert "# fail 0" in output, output
    # The server tests ran against the venv's holodeck-lsp, not skipped.
    assert "# skipped 0" in output, output
    passed = int(output.split("# pass ")[1].split()[0])
    assert passed >= 30, output


def test_vsix_contents(built: dict[str, str]) -> None:
    vsix = Path(built["vsix"])
    assert vsix.stat().st_size < MAX_VSIX_BYTES
    with zipfile.ZipFile(vsix) as archive:
        names = archive.namelist()
        manifest = json.loads(archive.read("extension/package.json"))
    assert "extension/package.json" in names
    assert "extension/dist/extension.js" in names
    leaked = [
        name
        for name in names
        if "node_modules/" in name
        or name.startswith(("extension/src/", "extension/test/", "extension/out/"))
        or name.endswith((".ts", ".map"))
    ]
    assert leaked == [], leaked
    assert manifest["main"] in ("./dist/extension.js", "dist/extension.js")
    assert manifest["engines"]["vscode"]
    assert manifest["capabilities"]["untrustedWorkspaces"]["supported"] == "limited"


def test_manifest_contributes_the_documented_settings(built: dict[str, str]) -> None:
    with zipfile.ZipFile(built["vsix"]) as archive:
        manifest = json.loads(archive.read("extension/package.json"))
    settings = manifest["contributes"]["configuration"]["properties"]
    expected_defaults = {
        "holodeck.server.path": None,
        "holodeck.trustOverride": "auto",
        "holodeck.agentGlobs": ["agent.yaml", "*.agent.yaml"],
        "holodeck.cassettePath": None,
        "holodeck.parallelTestCases": None,
        "holodeck.debounceMs": 50,
        "holodeck.inlayHints.enabled": True,
    }
    for key, default in expected_defaults.items():
        assert key in settings, key
        assert settings[key]["default"] == default, key
        assert settings[key].get("markdownDescription") or settings[key].get("description"), key
    commands = {c["command"] for c in manifest["contributes"]["commands"]}
    assert {"holodeck.restartServer", "holodeck.openLastReport"} <= commands
