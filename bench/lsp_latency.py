"""Language-server latency: holodeck-lsp against yaml-language-server fed our JSON schema.

Drives both servers with `../shared/tools/lsp_probe.py` (as a subprocess, `--json`) on the
ConvFinQA yardstick files (100 dialogues and 1,000 cases): cold start, didOpen → diagnostics,
didChange → diagnostics, completion and hover latency; then `lsp_probe.py coverage` over
`tests/corpus` for both. Prints a comparison table and PASS/FAIL for holodeck-lsp's targets:

- didChange → diagnostics p95 ≤ 100 ms (100 dialogues) and ≤ 400 ms (1,000 cases);
- completion and hover p95 ≤ 20 ms (100 dialogues); "not measured" while the server has no
  completion;
- cold start (spawn → initialize response, median over sessions) ≤ 0.5 s.

yaml-language-server is installed with npm into bench/out/node_modules when missing.
Exits 1 when a target fails (0 with --no-fail).
"""

from __future__ import annotations

import argparse
import json
import platform
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:  # run as a script (bench/ on sys.path) or imported as bench.<module>
    from shared_folder import default_shared, generate_yardstick
except ImportError:
    from bench.shared_folder import default_shared, generate_yardstick

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SHARED = default_shared()
OUT = REPO / "bench" / "out"
YLS_VERSION = "1.25.0"
SIZES = (100, 1000)


@dataclass(frozen=True)
class Server:
    label: str
    command: list[str]
    extra: list[str]  # probe options (schema for yaml-language-server)


@dataclass(frozen=True)
class Target:
    name: str
    limit_ms: float
    measured_ms: float | None

    @property
    def verdict(self) -> str:
        if self.measured_ms is None:
            return "not measured"
        return "PASS" if self.measured_ms <= self.limit_ms else "FAIL"


def generate(shared: Path, out: Path, cases: int) -> Path:
    return generate_yardstick(shared, cases, out / f"c{cases}" / "agent.yaml", script="lsp_latency")


def holodeck_command() -> list[str]:
    beside = Path(sys.executable).parent / "holodeck-lsp"
    return [str(beside)] if beside.exists() else [sys.executable, "-m", "holodeck_lsp"]


def export_schema(out: Path) -> Path:
    schema = out / "agent.schema.json"
    subprocess.run(
        [*holodeck_command(), "--schema", "--output", str(schema)], check=True, capture_output=True
    )
    return schema


def yaml_language_server(version: str) -> list[str] | None:
    """bench/out/node_modules/.bin/yaml-language-server, installed with npm when missing."""
    binary = OUT / "node_modules" / ".bin" / "yaml-language-server"
    package = OUT / "node_modules" / "yaml-language-server" / "package.json"
    installed = (
        json.loads(package.read_text(encoding="utf-8")).get("version") if package.exists() else None
    )
    if installed != version:
        npm = shutil.which("npm")
        if npm is None:
            print("lsp_latency: npm not found; yaml-language-server not measured", file=sys.stderr)
            return None
        subprocess.run(
            [npm, "install", "--prefix", str(OUT), f"yaml-language-server@{version}"],
            check=True,
            capture_output=True,
        )
    return [str(binary), "--stdio"]


def probe(probe_tool: Path, mode: str, server: Server, args: list[str]) -> dict[str, Any]:
    command = [
        sys.executable,
        str(probe_tool),
        mode,
        "--server-cmd",
        shlex.join(server.command),
        *server.extra,
        *args,
        "--json",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0 and not done.stdout.strip():
        raise RuntimeError(f"{shlex.join(command)} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def stat(result: dict[str, Any], key: str, field: str = "p95") -> float | None:
    value = result.get("median", {}).get(key, {}).get(field)
    return float(value) if value is not None else None


def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:,.1f}"


def latency_rows(results: dict[tuple[str, int], dict[str, Any]], labels: list[str]) -> list[str]:
    rows = [
        ("Cold start (spawn → initialize response), median", "cold_start_ms", "p50"),
        ("didOpen → diagnostics, median", "open_to_diag_ms", "p50"),
        ("didChange → diagnostics p50", "edit_to_diag", "p50"),
        ("didChange → diagnostics p95", "edit_to_diag", "p95"),
        ("didChange → diagnostics max", "edit_to_diag", "max"),
        ("completion p50", "completion", "p50"),
        ("completion p95", "completion", "p95"),
        ("hover p50", "hover", "p50"),
        ("hover p95", "hover", "p95"),
    ]
    columns = [(label, size) for size in SIZES for label in labels]
    header = "| Measure (ms) | " + " | ".join(f"{lab} {size:,}" for lab, size in columns) + " |"
    lines = [header, "|---|" + "---:|" * len(columns)]
    for title, key, field in rows:
        cells = [
            fmt(stat(results[column], key, field)) if column in results else "—"
            for column in columns
        ]
        lines.append(f"| {title} | " + " | ".join(cells) + " |")
    faults = []
    for column in columns:
        runs = results.get(column, {}).get("runs", [])
        faults.append(runs[0].get("faults_detected", "—") if runs else "—")
    lines.append("| faults detected after edits (first session) | " + " | ".join(faults) + " |")
    return lines


def coverage_row(label: str, result: dict[str, Any]) -> str:
    summary = result.get("summary", {})
    error = summary.get("error", {})
    warning = summary.get("warning", {})
    return (
        f"| {label} | {error.get('caught')}/{error.get('total')} | "
        f"{warning.get('caught')}/{warning.get('total')} | {summary.get('false_positives')} | "
        f"{summary.get('crashes')} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--out", type=Path, default=OUT / "lsp_latency")
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--yls-version", default=YLS_VERSION)
    parser.add_argument("--no-yls", action="store_true", help="measure holodeck-lsp only")
    parser.add_argument("--json", action="store_true", help="print raw probe results as JSON")
    parser.add_argument("--no-fail", action="store_true")
    args = parser.parse_args()

    probe_tool = args.shared / "tools" / "lsp_probe.py"
    if not probe_tool.exists():
        sys.exit(f"lsp_latency: {probe_tool} not found (use --shared PATH)")
    args.out.mkdir(parents=True, exist_ok=True)
    files = {size: generate(args.shared, args.out, size) for size in SIZES}
    schema = export_schema(OUT)
    servers = [Server("holodeck-lsp", holodeck_command(), [])]
    if not args.no_yls:
        yls = yaml_language_server(args.yls_version)
        if yls is not None:
            schema_options = ["--schema", str(schema), "--schema-glob", "agent.yaml"]
            servers.append(Server(f"yaml-ls {args.yls_version}", yls, schema_options))

    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    results: dict[tuple[str, int], dict[str, Any]] = {}
    for size, path in files.items():
        for server in servers:
            print(f"lsp_latency: {server.label} on {size} cases …", file=sys.stderr)
            results[(server.label, size)] = probe(
                probe_tool,
                "latency",
                server,
                [
                    "--file",
                    str(path),
                    "--edits",
                    str(args.edits),
                    "--requests",
                    str(args.requests),
                    "--repeat",
                    str(args.repeat),
                ],
            )
    coverage = {
        server.label: probe(
            probe_tool, "coverage", server, ["--corpus-dir", str(REPO / "tests" / "corpus")]
        )
        for server in servers
    }

    ours = "holodeck-lsp"
    small, large = results[(ours, 100)], results[(ours, 1000)]
    cold = stat(small, "cold_start_ms", "p50")
    targets = [
        Target("didChange → diagnostics p95, 100 dialogues", 100, stat(small, "edit_to_diag")),
        Target("didChange → diagnostics p95, 1,000 cases", 400, stat(large, "edit_to_diag")),
        Target("completion p95, 100 dialogues", 20, stat(small, "completion")),
        Target("hover p95, 100 dialogues", 20, stat(small, "hover")),
        Target("cold start (spawn → initialize response)", 500, cold),
    ]

    if args.json:
        print(
            json.dumps(
                {
                    "date": started,
                    "latency": {f"{k[0]} {k[1]}": v for k, v in results.items()},
                    "coverage": coverage,
                },
                indent=1,
            )
        )
    print(f"\n{started}, {platform.node()}, Python {platform.python_version()}")
    print(f"--edits {args.edits} --requests {args.requests} --repeat {args.repeat}\n")
    print("\n".join(latency_rows(results, [s.label for s in servers])))
    for server in servers:
        for size in SIZES:
            runs = results[(server.label, size)].get("runs", [])
            errors = {r["completion"].get("error") for r in runs if "completion" in r} - {None}
            for error in errors:
                print(f"  {server.label} {size}: completion: {error}")
    print(
        "\n| Coverage (tests/corpus) | errors caught | warnings caught | false positives "
        "| crashes |"
    )
    print("|---|---:|---:|---:|---:|")
    for label, result in coverage.items():
        print(coverage_row(label, result))
    print("\n| Target (holodeck-lsp) | limit | measured | verdict |")
    print("|---|---:|---:|---|")
    for target in targets:
        print(
            f"| {target.name} | ≤ {target.limit_ms:g} ms | {fmt(target.measured_ms)} ms "
            f"| **{target.verdict}** |"
        )
    failed = any(target.verdict == "FAIL" for target in targets)
    return 1 if failed and not args.no_fail else 0


if __name__ == "__main__":
    sys.exit(main())
