"""Baseline names for stored runs: `runs/tags.json`, `{"version": 1, "tags": {name: id}}`.

A tag names one run; tagging another run with the same name moves it (as `git tag -f`).
Tagged runs are never pruned. `latest` and `previous` are not tag names: they always mean
the newest run and the one before it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from holodeck_lsp.checker.json_reading import read_json_file
from holodeck_lsp.runner.run_history.layout import TAGS_FILE, is_run_id

_VERSION = 1
RESERVED = ("latest", "previous")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$")


class TagError(Exception):
    """A tag cannot be read, written or used as given; the message says why and what to do."""


def check_name(name: str) -> None:
    if name in RESERVED:
        raise TagError(
            f"{name!r} cannot be a tag: it always means the {name} run; choose another name"
        )
    if is_run_id(name):
        raise TagError(f"{name!r} looks like a run id; choose a name that is not one")
    if not _NAME.match(name):
        raise TagError(
            f"{name!r} is not a tag name: use letters, digits and . _ / - (at most 64, "
            "starting with a letter or digit)"
        )


def read_tags(runs: Path) -> dict[str, str]:
    """Tag -> run id. Raises TagError when tags.json exists but is unreadable (it is never
    overwritten then: the tags in it would be lost)."""
    path = runs / TAGS_FILE
    try:
        raw = read_json_file(path)
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise TagError(
            f"{path} cannot be read ({error}); fix it or delete it (its tags are then lost)"
        ) from None
    tags = raw.get("tags") if isinstance(raw, dict) and raw.get("version") == _VERSION else None
    if not isinstance(tags, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in tags.items()
    ):
        raise TagError(
            f"{path} is not a tags file of version {_VERSION} "
            '({"version": 1, "tags": {"name": "run id"}}); fix it or delete it'
        )
    return dict(tags)


def write_tags(runs: Path, tags: dict[str, str]) -> None:
    """Atomically (a crash leaves the old file or the new one). Raises OSError."""
    path = runs / TAGS_FILE
    temporary = runs / f".{TAGS_FILE}.{os.getpid()}"
    data = {"version": _VERSION, "tags": dict(sorted(tags.items()))}
    temporary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def tags_by_run(tags: dict[str, str]) -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    for name, run_id in sorted(tags.items()):
        found.setdefault(run_id, []).append(name)
    return {run_id: tuple(names) for run_id, names in found.items()}
