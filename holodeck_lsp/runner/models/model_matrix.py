"""The models a run covers: `--model PROVIDER:NAME` strings parsed and checked, and the agent
with its `model:` switched to one of them.

A matrix run is the same suite once per model, everything else identical: only `provider`
and `name` change. Sampling settings (`temperature`, `max_tokens`, `top_p`) are kept, since
they are part of the test; connection settings (`endpoint`, `api_key`, `api_version`,
`auth_provider`) belong to a provider, so a switch to another provider drops them and takes
that provider's entry of the global `providers:` (config.yaml) instead — or the provider's
usual environment variables, as a plain run would.
"""

from __future__ import annotations

import difflib
import importlib.util
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from holodeck_lsp.runner.backends.providers import PROVIDERS, missing_extra_message
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.llm import Provider
from holodeck_lsp.schema.llm import model_label as provider_model_label

#: Fields that only mean something for the provider they were written for.
_CONNECTION_FIELDS = ("endpoint", "api_key", "api_version", "auth_provider")


#: provider -> (module its backend imports, pip extra)
class ModelSpecError(ValueError):
    """A `--model` value (or a `models:` entry) that names no usable model; the message
    leads with the value and says what would be accepted."""


@dataclass(frozen=True, slots=True)
class ModelRef:
    provider: Provider
    name: str

    @property
    def label(self) -> str:
        """`provider:name`, as results and reports carry it."""
        return provider_model_label(self.provider, self.name)


def model_label(agent: Agent) -> str:
    """The agent's own model as `provider:name`."""
    return provider_model_label(agent.model.provider, agent.model.name)


def parse_model(text: str, where: str = "--model") -> ModelRef:
    """`provider:name`; the name may hold colons itself (`ollama:qwen2.5:7b`)."""
    value = text.strip()
    provider_text, colon, name = value.partition(":")
    providers = [provider.value for provider in Provider]
    listed = ", ".join(providers)
    if not colon:
        hint = _closest(value, providers)
        if hint is not None:
            raise ModelSpecError(
                f"{where} {text!r} has no model name: write PROVIDER:NAME, e.g. {hint}:MODEL"
            )
        raise ModelSpecError(
            f"{where} {text!r} is not PROVIDER:NAME (e.g. openai:gpt-4o-mini); providers: {listed}"
        )
    try:
        provider = Provider(provider_text.strip().lower())
    except ValueError:
        hint = _closest(provider_text, providers)
        suggestion = f" — did you mean {hint}:{name}?" if hint is not None else ""
        raise ModelSpecError(
            f"{where} {text!r} names no known provider {provider_text!r}{suggestion} "
            f"(providers: {listed})"
        ) from None
    if not name.strip():
        raise ModelSpecError(
            f"{where} {text!r} has no model name after the colon: write {provider.value}:NAME"
        )
    return ModelRef(provider, name.strip())


def parse_models(texts: Sequence[str], where: str = "--model") -> list[ModelRef]:
    """Every value parsed, in order; a model named twice is refused (its results would
    be indistinguishable)."""
    refs: list[ModelRef] = []
    for text in texts:
        ref = parse_model(text, where)
        if ref in refs:
            raise ModelSpecError(
                f"{where} {ref.label} is given twice: name each model once "
                "(use --repeat N to run a model several times)"
            )
        refs.append(ref)
    return refs


def missing_extra(provider: Provider) -> str | None:
    """Why `provider`'s backend cannot be imported, with the install command; None when its
    SDK is installed. Looks the module up without importing it (that costs seconds)."""
    row = PROVIDERS[provider]
    try:
        found = importlib.util.find_spec(row.sdk_module) is not None
    except (ImportError, ValueError):
        found = False
    if found:
        return None
    return missing_extra_message(row, f"{row.sdk_module} is not installed")


def with_model(
    agent: Agent, ref: ModelRef, providers: Mapping[str, Mapping[str, Any]] | None = None
) -> Agent:
    """`agent` answered by `ref`: the same provider keeps every setting but the name; another
    provider keeps the sampling settings and takes its connection from `providers`
    (config.yaml's `providers:` entries, looked up as the loader does)."""
    from pydantic import ValidationError

    from holodeck_lsp.schema.llm import LLMProvider

    current = agent.model
    if ref.provider is current.provider:
        return agent.model_copy(update={"model": current.model_copy(update={"name": ref.name})})
    fields: dict[str, Any] = {
        key: getattr(current, key)
        for key in type(current).model_fields
        if key not in _CONNECTION_FIELDS and getattr(current, key) is not None
    }
    fields.update(provider=ref.provider, name=ref.name)
    entry = _provider_entry(ref.provider, providers or {})
    for key in _CONNECTION_FIELDS:
        if entry.get(key) is not None:
            fields[key] = entry[key]
    try:
        model = LLMProvider.model_validate(fields)
    except ValidationError as error:
        problems = "; ".join(str(item["msg"]) for item in error.errors())
        raise ModelSpecError(
            f"model {ref.label} cannot be used: {problems} — set it in the `providers:` entry "
            f"for {ref.provider.value} in config.yaml (beside the agent or in ~/.holodeck/)"
        ) from None
    return agent.model_copy(update={"model": model})


def as_recorded(agent: Agent, recorded: str | None) -> Agent:
    """`agent` as the model that answered a recording (`provider:name`, None: unknown),
    so a replay's results say that model and its judges default to it as they did when it
    was recorded. Only the provider and name change: a replay connects to nothing."""
    if recorded is None or recorded == model_label(agent):
        return agent
    try:
        ref = parse_model(recorded, "the cassette's model")
    except ModelSpecError:
        return agent  # a hand-edited name: answer as the agent's own model
    model = agent.model.model_copy(update={"provider": ref.provider, "name": ref.name})
    return agent.model_copy(update={"model": model})


def _provider_entry(
    provider: Provider, providers: Mapping[str, Mapping[str, Any]]
) -> Mapping[str, Any]:
    # As checker/global_config: by entry name first, then by the entry's own `provider:`.
    entry = providers.get(provider.value)
    if entry is not None:
        return entry
    for candidate in providers.values():
        if candidate.get("provider") == provider.value:
            return candidate
    return {}


def _closest(text: str, choices: list[str]) -> str | None:
    found = difflib.get_close_matches(text.strip().lower(), choices, n=1, cutoff=0.5)
    if found:
        return found[0]
    # `azure` for azure_openai: a prefix is a fair guess too.
    prefixed = [choice for choice in choices if text and choice.startswith(text.strip().lower())]
    return prefixed[0] if prefixed else None
