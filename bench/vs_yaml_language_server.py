"""Edit → diagnostics: holodeck-lsp side by side with yaml-language-server, in one run.

Both servers get the same 100-dialogue ConvFinQA file and the same edits, driven by the shared
probe (`../shared/tools/lsp_probe.py latency --json`): each edit is a full-text didChange that
alternately inserts a fault (an unknown key in a turn) and removes it, timed until the
publishDiagnostics for that version. yaml-language-server validates against the JSON Schema that
`holodeck-lsp schema` prints, given through its `yaml.schemas` setting, so both servers do
comparable validation work — and the script checks that both find every inserted fault before it
compares their times.

Sessions alternate between the servers (ours, theirs, ours, …) so that load from other work on
the machine falls on both alike; p50/p95/max are over every edit of every session.

yaml-language-server is the version pinned in bench/yaml_language_server/package-lock.json,
installed there with `npm ci` when missing. Targets: holodeck-lsp p95 ≤ 100 ms and ≤ 0.3× the
p95 of yaml-language-server. Exits 1 when a target fails (0 with --no-fail), 2 when the
comparison is not valid (a server missed faults, npm or node missing).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:  # run as a script (bench/ on sys.path) or imported as bench.<module>
    from shared_folder import default_shared, generate_yardstick
except ImportError:
    from bench.shared_folder import default_shared, generate_yardstick

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out" / "vs_yaml_language_server"
NPM_FOLDER = REPO / "bench" / "yaml_language_server"
P95_LIMIT_MS = 100.0
RATIO_LIMIT = 0.3


@dataclass
class Side:
    label: str
    command: list[str]
    probe_options: list[str]
    samples: list[float] = field(default_factory=list)
    session_p95: list[float] = field(default_factory=list)
    cold_start: list[float] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def holodeck_command() -> list[str]:
    beside = Path(sys.executable).parent / "holodeck-lsp"
    return [str(beside)] if beside.exists() else [sys.executable, "-m", "holodeck_lsp"]


def holodeck_version() -> str:
    done = subprocess.run(
        [*holodeck_command(), "--version"], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def export_schema(out: Path) -> Path:
    schema = out / "agent.schema.json"
    subprocess.run(
        [*holodeck_command(), "schema", "--output", str(schema)], check=True, capture_output=True
    )
    return schema


def pinned_yls_version() -> str:
    lock = json.loads((NPM_FOLDER / "package-lock.json").read_text(encoding="utf-8"))
    version: str = lock["packages"]["node_modules/yaml-language-server"]["version"]
    return version


def installed_yls_version() -> str | None:
    package = NPM_FOLDER / "node_modules" / "yaml-language-server" / "package.json"
    if not package.exists():
        return None
    version: str | None = json.loads(package.read_text(encoding="utf-8")).get("version")
    return version


def yaml_language_server() -> list[str]:
    """The pinned server's command; `npm ci` first when it is missing or another version."""
    if installed_yls_version() != pinned_yls_version():
        npm = shutil.which("npm")
        if npm is None:
            sys.exit(
                "vs_yaml_language_server: npm not found — install node 20 and npm, or run "
                f"`npm ci` in {NPM_FOLDER.relative_to(REPO)} yourself"
            )
        print(f"vs_yaml_language_server: npm ci in {NPM_FOLDER} …", file=sys.stderr)
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"], cwd=NPM_FOLDER, check=True, capture_output=True
        )
    return [str(NPM_FOLDER / "node_modules" / ".bin" / "yaml-language-server"), "--stdio"]


def node_version() -> str:
    node = shutil.which("node")
    if node is None:
        return "not found"
    return subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs ({model}), {platform.system()} {platform.release()}"


def load_average() -> str:
    try:
        return ", ".join(f"{value:.1f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def probe_session(probe_tool: Path, side: Side, agent: Path, edits: int) -> None:
    """One fresh server session of `edits` edits; its samples are added to `side`."""
    command = [
        sys.executable,
        str(probe_tool),
        "latency",
        "--server-cmd",
        shlex.join(side.command),
        *side.probe_options,
        "--file",
        str(agent),
        "--edits",
        str(edits),
        "--requests",
        "0",
        "--repeat",
        "1",
        "--json",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    if not done.stdout.strip():
        side.errors.append(f"{shlex.join(command)} printed nothing:\n{done.stderr[-2000:]}")
        return
    report: dict[str, Any] = json.loads(done.stdout)
    for run in report["runs"]:
        if "error" in run:
            side.errors.append(str(run["error"]))
            continue
        side.samples.extend(run["edit_to_diag"]["samples"])
        side.session_p95.append(run["edit_to_diag"]["p95"])
        side.cold_start.append(run["cold_start_ms"])
        side.faults.append(run["faults_detected"])
        side.fixes.append(run["fixes_restored"])


def percentile(values: list[float], pct: float) -> float:
    """Linear interpolation between closest ranks, as the probe computes it."""
    ordered = sorted(values)
    rank = (len(ordered) - 1) * pct / 100.0
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def all_found(counts: list[str]) -> bool:
    """Every session's `found/total` has found == total."""
    return bool(counts) and all(a == b for a, b in (c.split("/") for c in counts))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=default_shared())
    parser.add_argument("--cases", type=int, default=100, help="dialogues in the file (100)")
    parser.add_argument("--edits", type=int, default=100, help="edits per session (100)")
    parser.add_argument("--sessions", type=int, default=3, help="sessions per server (3)")
    parser.add_argument("--json", action="store_true", help="print the samples as JSON too")
    parser.add_argument("--no-fail", action="store_true")
    args = parser.parse_args()

    probe_tool = args.shared / "tools" / "lsp_probe.py"
    if not probe_tool.exists():
        sys.exit(f"vs_yaml_language_server: {probe_tool} not found (use --shared PATH)")
    OUT.mkdir(parents=True, exist_ok=True)
    agent = generate_yardstick(
        args.shared,
        args.cases,
        OUT / f"c{args.cases}" / "agent.yaml",
        script="vs_yaml_language_server",
    )
    schema = export_schema(OUT)
    yls_version = pinned_yls_version()
    ours = Side(f"holodeck-lsp {holodeck_version()}", holodeck_command(), [])
    theirs = Side(
        f"yaml-language-server {yls_version}",
        yaml_language_server(),
        ["--schema", str(schema), "--schema-glob", "agent.yaml"],
    )

    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_before = load_average()
    for session in range(args.sessions):
        for side in (ours, theirs):
            print(
                f"vs_yaml_language_server: {side.label}, session {session + 1}/{args.sessions} …",
                file=sys.stderr,
            )
            probe_session(probe_tool, side, agent, args.edits)
    load_after = load_average()

    lines = agent.read_text(encoding="utf-8").count("\n")
    print(f"\n{started}; {machine()}; load average {load_before} before, {load_after} after")
    print(
        f"Python {platform.python_version()}, node {node_version()}; file {agent.relative_to(REPO)}"
        f" ({args.cases} dialogues, {lines:,} lines); {args.sessions} sessions × {args.edits} edits"
        " per server, alternating\n"
    )
    print(
        "| Server | edits | didChange → diagnostics p50 | p95 | max | p95 per session"
        " | cold start (median) | faults found | fixes seen |"
    )
    print("|---|---:|---:|---:|---:|---|---:|---|---|")
    valid = True
    for side in (ours, theirs):
        for error in side.errors:
            print(f"  {side.label}: session failed: {error}", file=sys.stderr)
        if not side.samples:
            print(f"| {side.label} | 0 | — | — | — | — | — | — | — |")
            valid = False
            continue
        valid = valid and all_found(side.faults) and all_found(side.fixes) and not side.errors
        per_session = " / ".join(f"{p:.1f}" for p in side.session_p95)
        cold = sorted(side.cold_start)[len(side.cold_start) // 2]
        print(
            f"| {side.label} | {len(side.samples)} | {percentile(side.samples, 50):.1f} ms"
            f" | {percentile(side.samples, 95):.1f} ms | {max(side.samples):.1f} ms"
            f" | {per_session} | {cold:.0f} ms | {', '.join(side.faults)}"
            f" | {', '.join(side.fixes)} |"
        )
    if args.json:
        print(
            json.dumps(
                {
                    side.label: {"samples": side.samples, "faults": side.faults}
                    for side in (ours, theirs)
                }
            )
        )
    if not valid:
        print(
            "\nNOT COMPARABLE: a session failed, or a server missed inserted faults or kept "
            "reporting removed ones (see the table); no verdict.",
        )
        return 2

    our_p95 = percentile(ours.samples, 95)
    ratio = our_p95 / percentile(theirs.samples, 95)
    targets = [
        (
            "holodeck-lsp didChange → diagnostics p95",
            f"≤ {P95_LIMIT_MS:g} ms",
            f"{our_p95:.1f} ms",
            our_p95 <= P95_LIMIT_MS,
        ),
        (
            "holodeck-lsp p95 / yaml-language-server p95",
            f"≤ {RATIO_LIMIT:g}×",
            f"{ratio:.2f}×",
            ratio <= RATIO_LIMIT,
        ),
    ]
    print("\n| Target | limit | measured | verdict |")
    print("|---|---:|---:|---|")
    for name, limit, measured, passed in targets:
        print(f"| {name} | {limit} | {measured} | **{'PASS' if passed else 'FAIL'}** |")
    failed = not all(passed for *_, passed in targets)
    return 1 if failed and not args.no_fail else 0


if __name__ == "__main__":
    sys.exit(main())
