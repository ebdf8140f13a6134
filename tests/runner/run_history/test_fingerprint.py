"""The resume fingerprint (runner/run_history/fingerprint.py) covers every file a verdict
depends on that the agent names — beside the `.py` files of its folder: a stdio MCP server's
script given by path (inside the folder or not, `.py` or not), a prompt tool's template file,
the instructions file, and the files the cases send (case-level and per turn)."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
from holodeck_lsp.runner.run_history.fingerprint import changed, fingerprint

AGENT = """\
name: fingerprinted
model: {provider: openai, name: gpt-4o-mini}
instructions: {file: prompt.md}
tools:
  - {name: calc, type: mcp, description: Calculator., command: node,
     args: ["--no-warnings", ../servers/calc.js, --verbose]}
  - name: summarise
    type: prompt
    description: Summarise.
    file: templates/summary.txt
    parameters: {text: {type: string}}
test_cases:
  - name: one
    input: "What is in the picture?"
    files: [{path: data/cat.png, type: image}]
  - name: two
    turns:
      - input: "And this one?"
        files: [{path: data/report.pdf, type: pdf}]
"""

#: Each file the agent names (paths relative to the agent's folder) and its first content.
NAMED = {
    "prompt.md": "Answer briefly.",
    "../servers/calc.js": "console.log('calc v1')",
    "templates/summary.txt": "Summarise {{text}}",
    "data/cat.png": "png v1",
    "data/report.pdf": "pdf v1",
}


def _agent_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    for name, text in NAMED.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    (folder / "agent.yaml").write_text(AGENT, "utf-8")
    return folder


def _fingerprint(folder: Path) -> dict[str, str]:
    path = folder / "agent.yaml"
    loaded = load_agent_text(AGENT, path, LoadOptions(home=folder, env={}))
    assert loaded.agent is not None, [d.message for d in loaded.diagnostics]
    return fingerprint(loaded.agent, path)


@pytest.mark.parametrize("name", sorted(NAMED))
def test_a_changed_file_the_agent_names_changes_the_fingerprint(tmp_path: Path, name: str) -> None:
    folder = _agent_folder(tmp_path)
    before = _fingerprint(folder)
    (folder / name).write_text(NAMED[name] + " (edited)", "utf-8")
    [what] = changed(before, _fingerprint(folder))
    # Inside the folder a file is named relative to it; outside it, by its absolute path.
    expected = str((folder / name).resolve()) if name.startswith("..") else name
    assert what == expected


def test_flags_and_missing_arguments_are_not_files(tmp_path: Path) -> None:
    folder = _agent_folder(tmp_path)
    names = set(_fingerprint(folder))
    assert not any("verbose" in name or "no-warnings" in name for name in names)
    assert {"agent.yaml", "prompt.md", "data/cat.png"} <= names
