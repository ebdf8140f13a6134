"""The run's closing lines state the pass rate with its 95 % Wilson interval (docs/reports.md,
"Uncertainty"), through the console script on the sample replayed from its cassette. (The
matrix table's rows: tests/cli/console/test_matrix_statistics.py — a replay runs no repeats.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.engine.statistics.wilson import wilson_interval
from tests.cli.built_reports import cli
from tests.sample.sample_support import copy_sample

pytestmark = pytest.mark.slow  # a replay of the sample


def test_closing_lines_state_the_interval(tmp_path: Path) -> None:
    folder = copy_sample(tmp_path)
    cassette = folder / "cassettes" / "oracle.json"
    done = cli("run", folder, "--replay", cassette, "--no-save")
    assert done.returncode == 1, done.stderr  # the cassette's planted mistakes fail 6 cases
    interval = wilson_interval(4, 10)
    line = f"pass rate 40.0% [{interval.low * 100:.1f}, {interval.high * 100:.1f}]"
    assert f"{line} (95% interval, 10 measured case sessions)" in done.stdout
