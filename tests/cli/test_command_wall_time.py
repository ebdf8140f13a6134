"""The wall time `run` prints is the command's, start-up included (commands/run/command_clock.py):
a start-up made slow on purpose (a `sitecustomize` that sleeps before anything of holodeck-lsp
is imported) is in the printed figure, which stays within the time the process was seen to
take from outside."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.runner.test_run_cli_live import CLI, child_env
from tests.sample.sample_support import copy_sample

pytestmark = pytest.mark.slow

_WALL = re.compile(r" in (\d+\.\d)s wall time")
START_UP = 2.0


def test_the_printed_wall_time_includes_start_up(tmp_path: Path) -> None:
    folder = copy_sample(tmp_path)
    slow = tmp_path / "slow-start"
    slow.mkdir()
    (slow / "sitecustomize.py").write_text(f"import time\ntime.sleep({START_UP})\n", "utf-8")
    env = child_env(tmp_path)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(slow), env.get("PYTHONPATH", "")]))
    began = time.perf_counter()
    done = subprocess.run(
        [CLI, "run", str(folder), "--replay", str(folder / "cassettes" / "oracle.json"),
         "--no-save", "--quiet"],
        capture_output=True, text=True, env=env, timeout=180, check=False,
    )  # fmt: skip
    outside = time.perf_counter() - began
    assert done.returncode in (0, 1), done.stdout + done.stderr
    (printed,) = _WALL.findall(done.stdout)
    assert START_UP <= float(printed) <= outside + 0.1, (printed, outside, done.stdout)
