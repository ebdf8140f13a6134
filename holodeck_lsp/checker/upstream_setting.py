"""`upstream_loadable:` of holodeck-lsp's own config file: whether this project's files must
stay loadable by upstream HoloDeck, which makes what extends it (HD160) an error.

    # holodeck-lsp.yaml — beside the agent file, or in ~/.holodeck/
    upstream_loadable: true

Found as `models:` is (settings/models_config.py): the project's file, else the user's. Data
only; never raises (the checker reports a value it cannot read, docs/simulated-users.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.checker.settings_file import NAMES
from holodeck_lsp.checker.yaml_document import parse_yaml

KEY = "upstream_loadable"


@dataclass(frozen=True, slots=True)
class UpstreamSetting:
    required: bool = False
    #: The file that set it (None: no file sets it).
    source: Path | None = None
    #: Why the value could not be read (the setting then counts as false).
    problem: str | None = None


def upstream_setting(agent_dir: Path, home: Path | None = None) -> UpstreamSetting:
    """The project's `upstream_loadable`, else the user's; false when neither sets it."""
    user_dir = (home if home is not None else Path.home()) / ".holodeck"
    for folder in (agent_dir, user_dir):
        for name in NAMES:
            path = folder / name
            if not path.is_file():
                continue
            try:
                data = parse_yaml(read_file_text(path, "utf-8", yaml=True)).value
            except (OSError, UnicodeDecodeError) as error:
                return UpstreamSetting(False, path, f"{path.name} cannot be read ({error})")
            value = data.get(KEY) if isinstance(data, dict) else None
            if value is None:
                break
            if not isinstance(value, bool):
                problem = f"{path.name}: `{KEY}` must be true or false, not {value!r}"
                return UpstreamSetting(False, path, problem)
            return UpstreamSetting(value, path)
    return UpstreamSetting()
