"""The VS Code extension (vscode-extension/) builds, type-checks, passes its unit tests and
packages into a .vsix that carries the bundle and nothing it should not.

Real tools, real files: `npm ci` from the committed lockfile, `tsc`, `node --test` (whose server
tests talk to this venv's `holodeck-lsp` through $HOLODECK_LSP), `vsce package`. One module
fixture runs the commands in order; each assertion is its own test."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from tests.extension.npm_build import run_npm

MAX_VSIX_BYTES = 2 * 1024 * 1024


#: What `npm run typecheck` and `npm test` run (vscode-extension/package.json): the fixture
#: below does both with one compile.
SCRIPTS = {
    "typecheck": "tsc --noEmit -p .",
    "test": "tsc -p tsconfig.test.json && node --test out/test/*.test.js",
}


@pytest.fixture(scope="module")
def built(packaged_extension: dict[str, str]) -> dict[str, str]:
    """npm ci and package (once per session, shared with tests/e2e), then the typecheck and
    the unit tests; their outputs by step. `npm run typecheck` and `npm test` would compile
    the sources twice (tsconfig.test.json is tsconfig.json less five files that import
    `vscode`): one `tsc -p .` that emits checks the whole program as the typecheck does (it
    fails on any type error) and writes the out/test/*.js that `npm test` runs."""
    folder = Path(packaged_extension["folder"])
    scripts = json.loads((folder / "package.json").read_text(encoding="utf-8"))["scripts"]
    assert {k: scripts[k] for k in SCRIPTS} == SCRIPTS, "update the fixture to the new scripts"
    typecheck = run_npm(
        "exec", "--offline", "--", "tsc", "-p", ".", "--sourceMap", "false", cwd=folder
    )
    tests = sorted(str(p.relative_to(folder)) for p in (folder / "out" / "test").glob("*.test.js"))
    return {
        **packaged_extension,
        "typecheck": typecheck,
        "test": run_npm("exec", "--offline", "--", "node", "--test", *tests, cwd=folder),
    }


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
        "holodeck.regradeOnEdit": True,
    }
    for key, default in expected_defaults.items():
        assert key in settings, key
        assert settings[key]["default"] == default, key
        assert settings[key].get("markdownDescription") or settings[key].get("description"), key
    commands = {c["command"] for c in manifest["contributes"]["commands"]}
    wanted = {
        "holodeck.restartServer",
        "holodeck.openLastReport",
        "holodeck.openRunReport",
        "holodeck.cancelActiveRun",
    }
    assert wanted <= commands
