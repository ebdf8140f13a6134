"""docs/architecture.md's "Where does a change go?" table names real places: every file or
folder it names in backticks exists — under holodeck_lsp/ for the package's modules
(`commands/`, `cli.py`), else from the repository's root (`tests/…`, `docs/…`,
`pyproject.toml`). Patterns with a placeholder (`test_<feature>.py`) are left out."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"
HEADING = "## Where does a change go?"
#: A backticked word that names a file or folder: has a `/` or a file suffix we write.
PATH = re.compile(r"`([\w./-]+(?:/|\.py|\.md|\.toml|\.json|\.yaml))`")


def table_rows() -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]


def named_paths(rows: list[str]) -> list[str]:
    return sorted({match for row in rows for match in PATH.findall(row) if "<" not in match})


def where(name: str) -> Path:
    """The package's modules are named from holodeck_lsp/; the rest from the root."""
    first = name.split("/", 1)[0]
    if first in ("tests", "docs", "bench", "sample", "scripts", "vscode-extension"):
        return ROOT / name
    if (ROOT / name).exists() and "/" not in name.rstrip("/"):
        return ROOT / name  # pyproject.toml
    return ROOT / "holodeck_lsp" / name


def test_the_table_has_rows_and_names_paths() -> None:
    rows = table_rows()
    assert len(rows) >= 10, rows
    names = named_paths(rows)
    assert "cli.py" in names and "commands/import_/registry.py" in names


def test_every_path_the_table_names_exists() -> None:
    missing = [name for name in named_paths(table_rows()) if not where(name).exists()]
    assert missing == []


def test_the_finder_sees_paths_and_skips_placeholders() -> None:
    row = "| x | `runner/a.py` and `tests/b/` but `test_<x>.py`, `--flag`, `a.b` |"
    assert named_paths([row]) == ["runner/a.py", "tests/b/"]
