"""The `models:` list of holodeck-lsp's own config file: the models `holodeck-lsp run` covers
when no `--model` is given.

    # holodeck-lsp.yaml — beside the agent file, or in ~/.holodeck/
    models:
      - openai:gpt-4o-mini
      - anthropic:claude-sonnet-4-5

Looked for where HoloDeck's config.yaml is (the user's `~/.holodeck/`, then the agent's
folder; the project's file wins — it replaces the user's list, lists are not merged), but in
a file of our own: HoloDeck reads config.yaml strictly (unknown keys are an error there), so a
`models:` key in it would break HoloDeck itself. Data only; the entries are checked by the
runner (`model_matrix.parse_models`), which names this file in its messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.checker.settings_file import NAMES as NAMES
from holodeck_lsp.checker.yaml_document import parse_yaml


class ModelsConfigError(ValueError):
    """The file exists but its `models:` cannot be read; the message names the file."""


@dataclass(frozen=True, slots=True)
class ConfiguredModels:
    models: tuple[str, ...]
    #: The file the list came from.
    source: Path


def _config_file(folder: Path) -> Path | None:
    for name in NAMES:
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def _read(path: Path) -> tuple[str, ...] | None:
    try:
        text = read_file_text(path, "utf-8", yaml=True)
    except (OSError, UnicodeDecodeError) as error:
        raise ModelsConfigError(f"{path}: cannot be read ({error})") from None
    document = parse_yaml(text)
    if document.root is None and document.problems:
        raise ModelsConfigError(f"{path}: {document.problems[0].message}")
    data = document.value
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ModelsConfigError(f"{path}: expected a mapping with `models:`")
    models = data.get("models")
    if models is None:
        return None
    if not isinstance(models, list) or not all(isinstance(item, str) for item in models):
        raise ModelsConfigError(
            f"{path}: `models` must be a list of PROVIDER:NAME strings, "
            "e.g. [openai:gpt-4o-mini, anthropic:claude-sonnet-4-5]"
        )
    return tuple(models)


def configured_models(agent_dir: Path, home: Path | None = None) -> ConfiguredModels | None:
    """The project's list, else the user's; None when neither file sets `models:` (an empty
    list is a list: it means the agent's own model)."""
    user_dir = (home if home is not None else Path.home()) / ".holodeck"
    for folder in (agent_dir, user_dir):
        path = _config_file(folder)
        if path is None:
            continue
        models = _read(path)
        if models is not None:
            return ConfiguredModels(models, path)
    return None
