"""`max_tool_rounds:` in holodeck-lsp.yaml and `--max-tool-rounds`, read by
settings/limits_config.py and applied by runner/project_limits.py for `run` and the editor
alike (docs/running.md, "Tool loop")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from holodeck_lsp.runner.limits import registry
from holodeck_lsp.runner.project_limits import ProjectLimitsError, apply_project_limits
from holodeck_lsp.settings.limits_config import configured_limits
from holodeck_lsp.settings.models_config import ModelsConfigError


@pytest.fixture(autouse=True)
def fresh_settings() -> Iterator[None]:
    registry.reset()
    yield
    registry.reset()


def test_the_default_is_20_the_file_sets_it_and_the_flag_wins(tmp_path: Path) -> None:
    agent = tmp_path / "agent.yaml"
    apply_project_limits(agent)
    assert registry.settings().max_tool_rounds == registry.DEFAULT_MAX_TOOL_ROUNDS == 20
    (tmp_path / "holodeck-lsp.yaml").write_text("max_tool_rounds: 6\n", encoding="utf-8")
    apply_project_limits(agent)
    assert registry.settings().max_tool_rounds == 6
    apply_project_limits(agent, max_tool_rounds=9)
    assert registry.settings().max_tool_rounds == 9


def test_the_users_file_applies_when_the_project_sets_none(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".holodeck").mkdir(parents=True)
    (home / ".holodeck" / "holodeck-lsp.yaml").write_text("max_tool_rounds: 40\n", "utf-8")
    (tmp_path / "holodeck-lsp.yaml").write_text("retry_budget: 2\n", encoding="utf-8")
    found = configured_limits(tmp_path, home=home)
    assert (found.retry_budget, found.max_tool_rounds) == (2, 40)


@pytest.mark.parametrize("value", ["0", "-3", "true", "'many'", "2.5"])
def test_a_bad_value_names_the_key_and_what_it_must_be(tmp_path: Path, value: str) -> None:
    (tmp_path / "holodeck-lsp.yaml").write_text(f"max_tool_rounds: {value}\n", encoding="utf-8")
    with pytest.raises(ModelsConfigError, match=r"`max_tool_rounds` must be a whole number ≥ 1"):
        configured_limits(tmp_path, home=tmp_path / "home")
    with pytest.raises(ProjectLimitsError, match=r"holodeck-lsp\.yaml"):
        apply_project_limits(tmp_path / "agent.yaml")
