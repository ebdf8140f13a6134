"""The test tree itself: no `__init__.py` packages, so pytest imports each test file by its
base name — two files with the same name in different folders break collection ("import file
mismatch"). Name the second one after what it tests (`test_run_commands.py`, not
`test_commands.py`)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_test_file_names_are_unique() -> None:
    files = [p for p in TESTS.rglob("test_*.py") if "node_modules" not in p.parts]
    counts = Counter(p.name for p in files)
    clashes = {
        name: sorted(str(p.relative_to(TESTS)) for p in files if p.name == name)
        for name, count in counts.items()
        if count > 1
    }
    assert clashes == {}
