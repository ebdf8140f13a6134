"""The rate-limit settings of holodeck-lsp's own config file (beside `models:`):

    # holodeck-lsp.yaml — beside the agent file, or in ~/.holodeck/
    retry_budget: 8               # retries one turn may make (default 8)
    max_tool_rounds: 20           # tool rounds one turn may take (default 20)
    limits:                       # by provider:model, or by provider for all its models
      openai:gpt-4o-mini: {rpm: 500, tpm: 200000, max_in_flight: 16}
      anthropic: {max_in_flight: 8}

Found as `models:` is (the project's file, else the user's; the first file that sets a key
wins for that key). Data only: the runner's limiters (runner/limits/) use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.checker.yaml_document import parse_yaml
from holodeck_lsp.settings.models_config import NAMES, ModelsConfigError

LIMIT_KEYS = ("rpm", "tpm", "max_in_flight")


@dataclass(frozen=True, slots=True)
class ConfiguredLimits:
    retry_budget: int | None = None
    max_tool_rounds: int | None = None
    #: `provider:model` or `provider` -> {rpm, tpm, max_in_flight} (positive numbers).
    limits: dict[str, dict[str, float]] = field(default_factory=dict)
    #: `provider:model` -> {input, output} USD per million tokens (overrides the price list).
    prices: dict[str, dict[str, float]] = field(default_factory=dict)


def _document(path: Path) -> dict[str, Any]:
    try:
        text = read_file_text(path, "utf-8", yaml=True)
    except (OSError, UnicodeDecodeError) as error:
        raise ModelsConfigError(f"{path}: cannot be read ({error})") from None
    data = parse_yaml(text).value
    return data if isinstance(data, dict) else {}


def _numbers(path: Path, where: str, value: Any, keys: tuple[str, ...]) -> dict[str, float]:
    if not isinstance(value, dict) or not set(value) <= set(keys):
        raise ModelsConfigError(f"{path}: `{where}` must be a mapping of {', '.join(keys)}")
    out: dict[str, float] = {}
    for key, number in value.items():
        if isinstance(number, bool) or not isinstance(number, int | float) or number < 0:
            raise ModelsConfigError(f"{path}: `{where}.{key}` must be a positive number")
        out[str(key)] = float(number)
    return out


def _section(path: Path, data: dict[str, Any], key: str, keys: tuple[str, ...]) -> Any:
    raw = data.get(key)
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ModelsConfigError(f"{path}: `{key}` must map provider:model to its settings")
    return {str(name): _numbers(path, f"{key}.{name}", value, keys) for name, value in raw.items()}


def configured_limits(agent_dir: Path, home: Path | None = None) -> ConfiguredLimits:
    user_dir = (home if home is not None else Path.home()) / ".holodeck"
    budget: int | None = None
    rounds: int | None = None
    limits: dict[str, dict[str, float]] | None = None
    prices: dict[str, dict[str, float]] | None = None
    for folder in (agent_dir, user_dir):
        for name in NAMES:
            path = folder / name
            if not path.is_file():
                continue
            data = _document(path)
            raw_budget = data.get("retry_budget")
            if budget is None and raw_budget is not None:
                if (
                    isinstance(raw_budget, bool)
                    or not isinstance(raw_budget, int)
                    or raw_budget < 0
                ):
                    raise ModelsConfigError(f"{path}: `retry_budget` must be a whole number ≥ 0")
                budget = raw_budget
            if rounds is None:
                rounds = _tool_rounds(path, data.get("max_tool_rounds"))
            if limits is None:
                limits = _section(path, data, "limits", LIMIT_KEYS)
            if prices is None:
                prices = _section(path, data, "prices", ("input", "output"))
            break
    return ConfiguredLimits(budget, rounds, limits or {}, prices or {})


def _tool_rounds(path: Path, raw: Any) -> int | None:
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
        raise ModelsConfigError(
            f"{path}: `max_tool_rounds` must be a whole number ≥ 1 (tool rounds one turn may "
            f"take), not {raw!r}"
        )
    return raw
