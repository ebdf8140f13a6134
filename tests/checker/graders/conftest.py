"""The `agent` fixture: an agent folder with `graders.py` (tests.checker.graders.grader_files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.checker.graders.grader_files import GRADERS, write


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    agent_dir = tmp_path / "agent"
    write(agent_dir, "graders.py", GRADERS)
    return agent_dir
