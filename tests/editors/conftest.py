"""Fixtures of the editor tests."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def runtime_dir() -> Iterator[Path]:
    """Kate's XDG_RUNTIME_DIR, directly under the temporary folder: KIO puts its Unix sockets
    there, whose paths must fit in 108 bytes — under pytest-xdist `tmp_path` is too deep, and
    Kate then shows an "Error" box that takes the keyboard."""
    with tempfile.TemporaryDirectory(prefix="kate-") as folder:
        yield Path(folder)
