"""Settings from initializationOptions and workspace/configuration: what a reply that leaves a
key out keeps, and what a reply that empties it clears."""

from __future__ import annotations

from holodeck_lsp.server.settings import Settings


def test_cassette_path_is_kept_when_a_reply_leaves_it_out() -> None:
    # Neovim 0.7 sends settings only in initializationOptions; a later configuration reply
    # without the key must not drop them.
    settings = Settings()
    settings.apply_initialization_options({"trusted": True, "cassettePath": "cassettes/a.json"})
    settings.apply_configuration({"debounceMs": 10})
    assert settings.cassette_path == "cassettes/a.json"


def test_cassette_path_is_cleared_by_an_empty_or_null_value() -> None:
    for cleared in ("", None):
        settings = Settings()
        settings.apply_configuration({"cassettePath": "c.json"})
        settings.apply_configuration({"cassettePath": cleared})
        assert settings.cassette_path is None, cleared


def test_cassette_path_of_the_wrong_type_is_ignored() -> None:
    settings = Settings()
    settings.apply_configuration({"cassette_path": "c.json"})
    settings.apply_configuration({"cassettePath": 3})
    assert settings.cassette_path == "c.json"


def test_baseline_and_save_runs() -> None:
    settings = Settings()
    assert settings.baseline is None and settings.save_runs is True
    settings.apply_configuration({"baseline": " v1 ", "saveRuns": False})
    assert settings.baseline == "v1" and settings.save_runs is False
    settings.apply_configuration({"agentGlobs": ["agent.yaml"]})  # absent: kept
    assert settings.baseline == "v1"
    settings.apply_configuration({"baseline": ""})  # empty or null: the previous run
    assert settings.baseline is None
    settings.apply_configuration({"baseline": 3, "saveRuns": "no"})  # bad values ignored
    assert settings.baseline is None and settings.save_runs is False
