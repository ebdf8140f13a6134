"""The agent's system prompt, read the same way by both backends."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
from holodeck_lsp.runner.backends.base import BackendInitError
from holodeck_lsp.runner.backends.instructions import read_instructions
from holodeck_lsp.schema.agent import Agent


def agent_with(tmp_path: Path, instructions: str) -> Agent:
    text = (
        "name: a\nmodel: {provider: openai, name: gpt-4o}\n"
        f"instructions: {instructions}\ntest_cases:\n  - {{name: t, input: hi}}\n"
    )
    loaded = load_agent_text(
        text, tmp_path / "agent.yaml", LoadOptions(home=tmp_path / "home", env={})
    )
    assert loaded.agent is not None, [d.message for d in loaded.diagnostics]
    return loaded.agent


def test_inline_and_file_instructions(tmp_path: Path) -> None:
    assert read_instructions(agent_with(tmp_path, "{inline: Be brief.}"), tmp_path) == "Be brief."
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "system.md").write_text("From a file.\n", encoding="utf-8")
    agent = agent_with(tmp_path, "{file: prompts/system.md}")
    assert read_instructions(agent, tmp_path) == "From a file.\n"
    absolute = agent_with(tmp_path, f"{{file: {tmp_path / 'prompts' / 'system.md'}}}")
    assert read_instructions(absolute, tmp_path / "elsewhere") == "From a file.\n"


def test_a_missing_file_names_the_field_the_path_and_the_fix(tmp_path: Path) -> None:
    agent = agent_with(tmp_path, "{file: prompts/missing.md}")
    with pytest.raises(BackendInitError) as raised:
        read_instructions(agent, tmp_path)
    message = str(raised.value)
    assert message.startswith("instructions.file 'prompts/missing.md': cannot read ")
    assert str(tmp_path / "prompts" / "missing.md") in message
    assert "relative to the agent's folder" in message
