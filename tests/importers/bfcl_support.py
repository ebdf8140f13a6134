"""Shared by the `import bfcl` tests: the committed fixture (a few real BFCL records, see its
NOTICE), importing it into tmp_path, loading a written suite's grader by file, and keeping
in-process runs from seeing another suite's `bfcl_grader` module."""

from __future__ import annotations

import importlib.util
import os
import sys
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from holodeck_lsp.commands.import_.main import main as import_main
from holodeck_lsp.runner.agent_code.grader_import import clear_grader_cache

FIXTURE = Path(__file__).resolve().parent / "bfcl_fixture"
FIXTURE_DATA = FIXTURE / "bfcl_eval" / "data"
#: The real bfcl-eval wheel, when $HOLODECK_BFCL_WHEEL names it (tests that read it skip
#: without it; `pip download bfcl-eval==2026.3.23 --no-deps` fetches it).
REAL_WHEEL = Path(os.environ.get("HOLODECK_BFCL_WHEEL") or "bfcl-eval-wheel-not-given")


def run_import(*args: str) -> int:
    """`holodeck-lsp import bfcl ARGS`, in this process (the importer from the registry)."""
    return import_main(["bfcl", *args])


def fixture_wheel(tmp_path: Path, *, drop: str | None = None) -> Path:
    """The fixture as a wheel-shaped zip (optionally without the members containing `drop`)."""
    wheel = tmp_path / "bfcl_eval-0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path in sorted(FIXTURE.rglob("*")):
            name = path.relative_to(FIXTURE).as_posix()
            if path.is_file() and (drop is None or drop not in name):
                archive.write(path, name)
    return wheel


def load_file(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextmanager
def suite_imports_isolated() -> Iterator[None]:
    """A run imports the suite's `bfcl_grader` (and puts its folder on sys.path); each test's
    suite is another folder, so each run starts and ends without one."""
    path = list(sys.path)

    def forget() -> None:
        clear_grader_cache()
        for name in ("bfcl_grader", "tools"):
            sys.modules.pop(name, None)

    forget()
    try:
        yield
    finally:
        forget()
        sys.path[:] = path
