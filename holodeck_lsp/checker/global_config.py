"""HoloDeck's global configuration: `providers:` from ~/.holodeck/config.yaml and from a
config.yaml beside the agent (the project's wins), merged into `model:` and
`evaluations.model:` before validation — data only, no code runs.

An agent whose `model:` only names `provider: azure_openai` and gets its `endpoint` from
config.yaml is valid for HoloDeck, so it must be valid for us too.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.checker.yaml_document import parse_yaml

_NAMES = ("config.yaml", "config.yml")


@dataclass(frozen=True, slots=True)
class GlobalProviders:
    providers: dict[str, dict[str, Any]]
    sources: tuple[Path, ...]
    problems: tuple[str, ...]


def _config_file(folder: Path) -> Path | None:
    for name in _NAMES:
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def _read_providers(path: Path, env: Mapping[str, str] | None) -> tuple[dict[str, Any], str]:
    try:
        text = read_file_text(path, "utf-8", yaml=True)
    except (OSError, UnicodeDecodeError) as error:
        return {}, f"{path}: cannot be read ({error})"
    document = parse_yaml(text, env)
    if document.root is None and document.problems:
        return {}, f"{path}: {document.problems[0].message}"
    data = document.value
    if not isinstance(data, dict):
        return {}, ""
    providers = data.get("providers")
    if providers is None:
        return {}, ""
    if not isinstance(providers, dict):
        return {}, f"{path}: `providers` must be a mapping of named provider settings"
    return {str(k): v for k, v in providers.items() if isinstance(v, dict)}, ""


def load_global_providers(
    agent_dir: Path, home: Path | None = None, env: Mapping[str, str] | None = None
) -> GlobalProviders:
    """User-level then project-level providers, project entries merged over user ones."""
    merged: dict[str, dict[str, Any]] = {}
    sources: list[Path] = []
    problems: list[str] = []
    user_dir = (home if home is not None else Path.home()) / ".holodeck"
    for folder in (user_dir, agent_dir):
        path = _config_file(folder)
        if path is None or path in sources:
            continue
        providers, problem = _read_providers(path, env)
        sources.append(path)
        if problem:
            problems.append(problem)
        for name, entry in providers.items():
            merged[name] = {**merged.get(name, {}), **entry}
    return GlobalProviders(merged, tuple(sources), tuple(problems))


def _entry_for(provider: Any, providers: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    # Looked up by entry name first, then by the entry's own `provider:` value (as HoloDeck).
    entry = providers.get(provider) if isinstance(provider, str) else None
    if entry is not None:
        return entry
    for candidate in providers.values():
        if candidate.get("provider") == provider:
            return candidate
    return None


def _complete(model: Any, providers: dict[str, dict[str, Any]]) -> Any:
    if not isinstance(model, dict) or "provider" not in model:
        return model
    entry = _entry_for(model["provider"], providers)
    if entry is None:
        return model
    return {**{k: v for k, v in entry.items() if k not in model}, **model}


def merge_providers(data: dict[str, Any], providers: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A copy of `data` whose `model` / `evaluations.model` are completed from providers."""
    if not providers or "model" not in data:
        return data
    merged = dict(data)
    merged["model"] = _complete(data["model"], providers)
    evaluations = data.get("evaluations")
    if isinstance(evaluations, dict) and isinstance(evaluations.get("model"), dict):
        merged["evaluations"] = copy.copy(evaluations)
        merged["evaluations"]["model"] = _complete(evaluations["model"], providers)
    return merged
