"""`holodeck.backends`: per-provider overrides of `model:` for editor runs."""

from __future__ import annotations

import pytest

from holodeck_lsp.runner.backends.overrides import OverrideError, with_backend_overrides
from holodeck_lsp.schema.agent import Agent

AGENT = Agent.model_validate(
    {
        "name": "a",
        "model": {"provider": "ollama", "name": "llama3.2", "api_key": "secret"},
        "instructions": {"inline": "Answer."},
    }
)


def test_the_providers_entry_is_merged_into_model() -> None:
    overridden, applied = with_backend_overrides(
        AGENT,
        {"ollama": {"endpoint": "http://gpu-box:11434", "temperature": 0}, "openai": {"x": 1}},
    )
    assert applied == ["ollama.endpoint", "ollama.temperature"]
    model = overridden.model
    assert (model.endpoint, model.temperature, model.name) == (
        "http://gpu-box:11434",
        0,
        "llama3.2",
    )
    assert model.api_key is not None and model.api_key.get_secret_value() == "secret"
    assert AGENT.model.endpoint is None  # the agent itself is left as it was


@pytest.mark.parametrize("backends", [{}, {"openai": {"name": "gpt-4o"}}, {"ollama": {}}])
def test_no_entry_for_the_provider_changes_nothing(backends: dict[str, object]) -> None:
    assert with_backend_overrides(AGENT, backends) == (AGENT, [])


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("http://x", "holodeck.backends.ollama must be an object of model fields"),
        ({"api_key": "k"}, "cannot override api_key (allowed: api_version, endpoint"),
        ({"provider": "openai"}, "cannot override provider"),
        ({"temperature": 5}, "holodeck.backends.ollama is not valid: temperature: Input should"),
        ({"name": " "}, "holodeck.backends.ollama is not valid: name:"),
    ],
)
def test_entries_that_cannot_apply_name_the_setting(entry: object, message: str) -> None:
    with pytest.raises(OverrideError) as raised:
        with_backend_overrides(AGENT, {"ollama": entry})
    assert message in str(raised.value)
