"""`import bfcl` writes tools.py as `ruff format` writes it (importers/bfcl/suite.py): double
quotes, lines of at most 100, long calls split as the formatter splits them — so the sample's
tools.py is format-clean and a suite's own formatter leaves a regenerated file as it is. With
the real wheel ($HOLODECK_BFCL_WHEEL), the README's command writes the sample's bytes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from holodeck_lsp.exit_codes import EXIT_OK
from tests.importers.bfcl_support import FIXTURE, REAL_WHEEL, run_import

RUFF = Path(sys.executable).with_name("ruff")
SAMPLE = Path(__file__).resolve().parents[2] / "sample" / "bfcl-multi-turn"
needs_ruff = pytest.mark.skipif(not RUFF.exists(), reason="ruff is not installed beside python")


def _format_check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(RUFF), "format", "--check", "--diff", str(path)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


@needs_ruff
def test_the_samples_tools_are_format_clean() -> None:
    checked = _format_check(SAMPLE / "tools.py")
    assert checked.returncode == 0, checked.stdout + checked.stderr


@needs_ruff
def test_imported_tools_are_format_clean(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    assert run_import(str(FIXTURE), "-o", str(out), "--categories", "all") == EXIT_OK
    checked = _format_check(out / "tools.py")
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.skipif(not REAL_WHEEL.is_file(), reason="set HOLODECK_BFCL_WHEEL to the wheel")
def test_the_readme_command_writes_the_samples_tools(tmp_path: Path) -> None:
    out = tmp_path / "bfcl-multi-turn"
    shutil.copytree(SAMPLE, out)
    classes = "GorillaFileSystem,TwitterAPI,MathAPI"
    status = run_import(
        str(REAL_WHEEL), "--out", str(out), "--n", "20", "--classes", classes, "--force"
    )
    assert status == EXIT_OK
    assert (out / "tools.py").read_bytes() == (SAMPLE / "tools.py").read_bytes()
