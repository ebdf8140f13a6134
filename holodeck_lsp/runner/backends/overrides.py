"""The `holodeck.backends` setting: per-provider overrides of `model:` for runs started from
the editor — e.g. point `ollama` at another machine, or `openai` at a local gateway — without
editing agent.yaml (which the checker and CI keep reading as written).

    "holodeck.backends": {"ollama": {"endpoint": "http://gpu-box:11434", "name": "qwen2.5"}}

Keys are provider names (`openai`, `azure_openai`, `anthropic`, `ollama`); an entry applies
when the agent's `model.provider` is that provider. Only connection and sampling fields may be
overridden; API keys are not settings (they would end up in settings files): they come from
the environment as usual.

Run logic, so it lives in the runner: every run goes through `run_session`, which applies the
overrides it is given to a live backend (the server passes its setting; the CLI passes none).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from holodeck_lsp.schema.agent import Agent

OVERRIDABLE: Final = frozenset(
    {"name", "endpoint", "api_version", "temperature", "max_tokens", "top_p"}
)


class OverrideError(ValueError):
    """A `holodeck.backends` entry that cannot apply; the message names the setting."""


def with_backend_overrides(agent: Agent, backends: Mapping[str, Any]) -> tuple[Agent, list[str]]:
    """`agent` with its provider's entry of `backends` merged into `model:`, and the
    overridden keys as `provider.key` (empty when nothing applies)."""
    from pydantic import ValidationError

    from holodeck_lsp.schema.llm import LLMProvider

    provider = agent.model.provider.value
    entry = backends.get(provider)
    if entry is None:
        return agent, []
    setting = f"holodeck.backends.{provider}"
    if not isinstance(entry, Mapping):
        raise OverrideError(f"setting {setting} must be an object of model fields")
    unknown = sorted(str(key) for key in entry if key not in OVERRIDABLE)
    if unknown:
        allowed = ", ".join(sorted(OVERRIDABLE))
        raise OverrideError(
            f"setting {setting} cannot override {', '.join(unknown)} (allowed: {allowed}; "
            "API keys come from the environment)"
        )
    if not entry:
        return agent, []
    current = {field: getattr(agent.model, field) for field in type(agent.model).model_fields}
    try:
        model = LLMProvider.model_validate({**current, **entry})
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in item['loc']) or 'model'}: {item['msg']}"
            for item in error.errors()
        )
        raise OverrideError(f"setting {setting} is not valid: {problems}") from error
    applied = [f"{provider}.{key}" for key in sorted(entry)]
    return agent.model_copy(update={"model": model}), applied
