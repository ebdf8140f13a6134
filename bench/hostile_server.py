"""Hostile input against the checker and the language server (issue 35): `holodeck-lsp check`
on 10,000 and 20,000 unknown keys; the server's semanticTokens/full and documentLink on alias
bombs of 7 to 9 levels (eight aliases each, so 8 ** levels paths); the server's peak RSS
(VmHWM) after opening a document of one 50 MB flow line and asking it for symbols, tokens,
links, hover and completion. The documents come from tests/hostile/server_inputs.py.

    .venv/bin/python bench/hostile_server.py
    PYTHONPATH=/path/to/an/older/checkout .venv/bin/python bench/hostile_server.py  # before

A request gets `--timeout` seconds; one that does not answer in time is printed as such (the
server is then killed, since it would answer nothing else). Results: docs/benchmarks.md,
"Hostile input".
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.append(str(REPO))  # after PYTHONPATH: an older checkout can be measured

from tests.hostile.raw_server import RawServer  # noqa: E402
from tests.hostile.server_inputs import (  # noqa: E402
    alias_bomb,
    long_flow_line,
    many_unknown_keys,
)


def time_check(keys: int, folder: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process) of one `check`."""
    agent = folder / f"keys{keys}.agent.yaml"
    agent.write_text(many_unknown_keys(keys), encoding="utf-8")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "holodeck_lsp", "check", str(agent)],
        stdout=subprocess.DEVNULL,
        check=False,
        env=os.environ,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def bomb_times(levels: int, folder: Path, timeout: float) -> dict[str, float | None]:
    server = await RawServer.start()
    times: dict[str, float | None] = {}
    try:
        await server.initialize(folder)
        uri = server.open(folder / f"bomb{levels}.agent.yaml", alias_bomb(levels))
        # The outline first: its answer waits for the parse, so the next two time the walks.
        for method in (
            "textDocument/documentSymbol",
            "textDocument/semanticTokens/full",
            "textDocument/documentLink",
        ):
            started = time.perf_counter()
            try:
                await server.call(method, {"textDocument": {"uri": uri}}, timeout)
                times[method] = time.perf_counter() - started
            except AssertionError:
                times[method] = None
                break
    finally:
        await server.stop()
    return times


async def long_line(megabytes: int, folder: Path, timeout: float) -> tuple[float, float]:
    """(seconds until every request was answered, peak RSS MiB)."""
    server = await RawServer.start()
    try:
        await server.initialize(folder)
        uri = server.open(folder / "long.agent.yaml", long_flow_line(megabytes))
        started = time.perf_counter()
        document = {"textDocument": {"uri": uri}}
        position = {**document, "position": {"line": 8, "character": 10}}
        for method, params in (
            ("textDocument/documentSymbol", document),
            ("textDocument/semanticTokens/full", document),
            ("textDocument/documentLink", document),
            ("textDocument/hover", position),
            ("textDocument/completion", position),
        ):
            await server.call(method, params, timeout)
        return time.perf_counter() - started, peak_rss_mib(server.process.pid)
    finally:
        await server.stop()


_SHORT = {
    "textDocument/documentSymbol": "parse + outline",
    "textDocument/semanticTokens/full": "tokens",
    "textDocument/documentLink": "links",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=int, nargs="*", default=[10_000, 20_000])
    parser.add_argument("--levels", type=int, nargs="*", default=[7, 8, 9])
    parser.add_argument("--megabytes", type=int, default=50)
    parser.add_argument("--timeout", type=float, default=120.0)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="holodeck-hostile-") as name:
        folder = Path(name)
        for keys in options.keys:
            wall, cpu = time_check(keys, folder)
            print(f"check, {keys:,} unknown keys: {wall:.2f} s ({cpu:.2f} s CPU)", flush=True)
        for levels in options.levels:
            times = asyncio.run(bomb_times(levels, folder, options.timeout))
            shown = ", ".join(
                f"{_SHORT[method]} " + ("no answer" if value is None else f"{value:.2f} s")
                for method, value in times.items()
            )
            print(f"alias bomb, {levels} levels: {shown}", flush=True)
        if options.megabytes:
            seconds, rss = asyncio.run(long_line(options.megabytes, folder, options.timeout))
            print(
                f"{options.megabytes} MB flow line: answered in {seconds:.2f} s, "
                f"peak RSS {rss:.0f} MiB",
                flush=True,
            )


if __name__ == "__main__":
    main()
