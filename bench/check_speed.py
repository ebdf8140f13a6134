#!/usr/bin/env python3
"""How fast does holodeck-lsp check an agent.yaml? (see bench/README.md, docs/benchmarks.md)

Generates the ConvFinQA yardstick files (100 and 1,000 multi-turn cases) with
`<shared>/tools/gen_convfinqa_agent.py`, then measures, each after a warm-up and over
`--repeat` runs (min and median):

1. bare parse: ruamel.yaml's C composer, `YAML(typ="safe", pure=False).compose(text)`;
2. in-process load: `load_agent_text(text, path, LoadOptions())` (parse + convert +
   validate + grader checks + lints), and its ratio to (1);
3. `holodeck-lsp --check FILE --format json` as a fresh process (wall time), and the
   process start-up floor (`python -c pass`, `holodeck-lsp --version`, importing the loader).

Targets (PASS/FAIL, judged on the median, or the min with `--judge min`): 1,000 cases
`--check` whole process <= 1 s; in-process load <= 3x the bare parse; the 100-dialogue file
loads and validates in <= 40 ms. The ratio is judged against the bare parse with the garbage
collector paused (the stricter baseline: the loader pauses it while composing too); the
ratio against compose with GC on is reported beside it.
Exit status 1 if a target fails or a yardstick file does not load cleanly (`--no-fail`: 0).

    .venv/bin/python bench/check_speed.py [--repeat 7] [--profile] [--json] [--no-fail]
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import io
import json
import os
import pstats
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

try:  # run as a script (bench/ on sys.path) or imported as bench.<module>
    from shared_folder import default_shared, generate_yardstick
except ImportError:
    from bench.shared_folder import default_shared, generate_yardstick

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SHARED = default_shared()
DEFAULT_OUT = REPO / "bench" / "out" / "check_speed"
SIZES = (100, 1000)

#: Targets: (name, description, limit).
#: Environment of the timed child processes (None: this one's); see --pyc.
_child_env: dict[str, str] | None = None

CHECK_1000_LIMIT_S = 1.0
LOAD_RATIO_LIMIT = 3.0
LOAD_100_LIMIT_S = 0.040


@dataclass
class Timing:
    runs: list[float]

    @property
    def min(self) -> float:
        return min(self.runs)

    @property
    def median(self) -> float:
        return statistics.median(self.runs)

    def as_dict(self) -> dict[str, Any]:
        return {"min_s": self.min, "median_s": self.median, "runs_s": self.runs}


@dataclass
class SizeResult:
    cases: int
    lines: int
    bytes: int
    compose: Timing
    compose_gc_off: Timing
    compose_pure: Timing
    load: Timing
    check: Timing
    load_errors: int
    load_warnings: int
    load_other: int
    check_exit: int
    check_errors: int | None
    phases: dict[str, Timing] = field(default_factory=dict)

    def ratio(self, by: str = "median") -> float:
        return float(getattr(self.load, by) / getattr(self.compose, by))

    def ratio_gc_off(self, by: str = "median") -> float:
        return float(getattr(self.load, by) / getattr(self.compose_gc_off, by))


@dataclass
class Target:
    name: str
    limit: str
    measured: str
    passed: bool


@dataclass
class Report:
    repeat: int
    cli: list[str]
    sizes: list[SizeResult] = field(default_factory=list)
    floor: dict[str, Timing] = field(default_factory=dict)
    targets: list[Target] = field(default_factory=list)
    sanity: list[str] = field(default_factory=list)
    profile: dict[str, list[dict[str, Any]]] | None = None
    judge_by: str = "median"
    bytecode: str = ""
    revision: str = ""
    loadavg_before: tuple[float, float, float] | None = None
    loadavg_after: tuple[float, float, float] | None = None


# -- measuring --------------------------------------------------------------------------------


def time_in_process(fn: Callable[[], object], repeat: int, warmup: int = 1) -> Timing:
    """Wall time of fn() per call; a full collection before each run so runs start equal.

    The result is kept until the clock has stopped: freeing a 1,000-case node tree takes
    tens of milliseconds that belong to neither the parse nor the load."""
    for _ in range(warmup):
        fn()
    runs = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        runs.append(time.perf_counter() - start)
        del result
    return Timing(runs)


def time_process(
    cmd: list[str], repeat: int, warmup: int = 1
) -> tuple[Timing, subprocess.CompletedProcess[str]]:
    last: subprocess.CompletedProcess[str] | None = None
    for _ in range(warmup):
        last = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=_child_env)
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        last = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=_child_env)
        runs.append(time.perf_counter() - start)
    assert last is not None
    return Timing(runs), last


def generate(shared: Path, out: Path, cases: int) -> Path:
    return generate_yardstick(shared, cases, out / f"c{cases}" / "agent.yaml", script="check_speed")


def git_revision() -> str:
    """`git describe --always --dirty` of the repository (others may be editing it)."""
    try:
        done = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            cwd=REPO,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return done.stdout.strip()


def find_cli(explicit: str | None) -> list[str]:
    if explicit:
        return shlex.split(explicit)
    script = Path(sys.executable).with_name("holodeck-lsp")
    if script.exists():
        return [str(script)]
    found = shutil.which("holodeck-lsp")
    if found:
        return [found]
    return [sys.executable, "-m", "holodeck_lsp.cli"]


def import_loader(wait_s: float) -> Any:
    """The loader module; other people may be mid-edit, so retry for up to `wait_s`."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            from holodeck_lsp.checker import loader

            return loader
        except ImportError as error:
            if time.monotonic() >= deadline:
                sys.exit(f"check_speed: cannot import the loader: {error}")
            print(
                f"check_speed: loader not importable yet ({error}); retrying in 30 s",
                file=sys.stderr,
            )
            for name in [m for m in sys.modules if m.startswith("holodeck_lsp")]:
                del sys.modules[name]
            time.sleep(30)


def measure_size(loader: Any, cli: list[str], path: Path, cases: int, repeat: int) -> SizeResult:
    from ruamel.yaml import YAML

    text = path.read_text(encoding="utf-8-sig")
    parser = YAML(typ="safe", pure=False)

    def compose() -> object:
        return parser.compose(text)

    def compose_gc_off() -> object:
        gc.disable()
        try:
            return parser.compose(text)
        finally:
            gc.enable()

    options = loader.LoadOptions()

    def load() -> object:
        return loader.load_agent_text(text, path, options)

    compose_t = time_in_process(compose, repeat)
    compose_gc_off_t = time_in_process(compose_gc_off, repeat)
    pure = YAML(typ="safe", pure=True)
    # Informative only (what ruamel.yaml.clib buys): slow, so at most 3 runs.
    compose_pure_t = time_in_process(lambda: pure.compose(text), min(repeat, 3))
    load_t = time_in_process(load, repeat)
    phases = measure_phases(loader, text, path, repeat)

    result = loader.load_agent_text(text, path, options)
    severities = [d.severity for d in result.diagnostics]
    errors = sum(1 for d in result.diagnostics if d.is_error)
    warnings = sum(1 for s in severities if getattr(s, "name", str(s)).upper() == "WARNING")

    check_t, last = time_process([*cli, "--check", str(path), "--format", "json"], repeat)
    check_errors: int | None = None
    with contextlib.suppress(json.JSONDecodeError, TypeError, KeyError, AttributeError):
        check_errors = _count_json_errors(json.loads(last.stdout))
    return SizeResult(
        cases=cases,
        lines=text.count("\n"),
        bytes=len(text.encode()),
        compose=compose_t,
        compose_gc_off=compose_gc_off_t,
        compose_pure=compose_pure_t,
        load=load_t,
        check=check_t,
        load_errors=errors,
        load_warnings=warnings,
        load_other=len(severities) - errors - warnings,
        check_exit=last.returncode,
        check_errors=check_errors,
        phases=phases,
    )


def measure_phases(loader: Any, text: str, path: Path, repeat: int) -> dict[str, Timing]:
    """Unprofiled cumulative steps of a load (cProfile inflates call-heavy Python code)."""
    phases: dict[str, Timing] = {}
    try:
        from holodeck_lsp.checker.yaml_document import parse_yaml
    except ImportError:  # internal API: skip the breakdown rather than fail the benchmark
        return phases
    phases["parse_yaml (compose + YAML 1.1 conversion)"] = time_in_process(
        lambda: parse_yaml(text), repeat
    )
    bare = loader.LoadOptions(lints=False, global_config=False)
    phases["+ validate (no global config, no lints)"] = time_in_process(
        lambda: loader.load_agent_text(text, path, bare), repeat
    )
    no_lints = loader.LoadOptions(lints=False)
    phases["+ global config (no lints)"] = time_in_process(
        lambda: loader.load_agent_text(text, path, no_lints), repeat
    )
    return phases


def _count_json_errors(report: Any) -> int:
    """Error count of a `--format json` report, read defensively (summary, else per file)."""
    summary = report.get("summary") if isinstance(report, dict) else None
    if isinstance(summary, dict) and isinstance(summary.get("errors"), int):
        return int(summary["errors"])
    files = report.get("files", []) if isinstance(report, dict) else report
    return sum(
        1
        for entry in files
        for d in entry.get("diagnostics", [])
        if str(d.get("severity", "")).lower() == "error"
    )


def measure_floor(cli: list[str], repeat: int) -> dict[str, Timing]:
    floor = {}
    floor["python -c pass"] = time_process([sys.executable, "-c", "pass"], repeat)[0]
    floor["python -c 'import holodeck_lsp.checker.loader'"] = time_process(
        [sys.executable, "-c", "import holodeck_lsp.checker.loader"], repeat
    )[0]
    floor["holodeck-lsp --version"] = time_process([*cli, "--version"], repeat)[0]
    return floor


def profile_loads(loader: Any, path: Path, loads: int, top: int) -> dict[str, list[dict[str, Any]]]:
    text = path.read_text(encoding="utf-8-sig")
    options = loader.LoadOptions()
    loader.load_agent_text(text, path, options)  # warm caches outside the profile
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(loads):
        loader.load_agent_text(text, path, options)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=io.StringIO())
    out: dict[str, list[dict[str, Any]]] = {}
    for key in ("cumulative", "tottime"):
        stats.sort_stats(key)
        rows = []
        for func in stats.fcn_list[:top]:  # type: ignore[attr-defined]
            cc, nc, tt, ct, _ = stats.stats[func]  # type: ignore[attr-defined]
            rows.append(
                {
                    "function": _func_name(func),
                    "ncalls": nc,
                    "primitive_calls": cc,
                    "tottime_ms_per_load": 1000 * tt / loads,
                    "cumtime_ms_per_load": 1000 * ct / loads,
                }
            )
        out[key] = rows
    return out


def _func_name(func: tuple[str, int, str]) -> str:
    filename, line, name = func
    if filename == "~":
        return name  # built-in
    path = Path(filename)
    try:
        shown = str(path.resolve().relative_to(REPO))
    except ValueError:
        parts = path.parts
        shown = (
            "/".join(parts[parts.index("site-packages") + 1 :])
            if "site-packages" in parts
            else str(path)
        )
    return f"{shown}:{line}({name})"


# -- judging and printing ---------------------------------------------------------------------


def judge(report: Report) -> None:
    by = report.judge_by
    by_cases = {s.cases: s for s in report.sizes}
    if 1000 in by_cases:
        check = getattr(by_cases[1000].check, by)
        report.targets.append(
            Target(
                "1,000 cases: --check whole process",
                f"<= {CHECK_1000_LIMIT_S:.1f} s",
                f"{check * 1000:.0f} ms",
                check <= CHECK_1000_LIMIT_S,
            )
        )
    for size in report.sizes:
        report.targets.append(
            Target(
                f"{size.cases:,} cases: in-process load / bare parse (GC paused)",
                f"<= {LOAD_RATIO_LIMIT:.0f}x",
                f"{size.ratio_gc_off(by):.2f}x (vs compose with GC on: {size.ratio(by):.2f}x)",
                size.ratio_gc_off(by) <= LOAD_RATIO_LIMIT,
            )
        )
    if 100 in by_cases:
        load = getattr(by_cases[100].load, by)
        report.targets.append(
            Target(
                "100 dialogues: load + validate",
                f"<= {LOAD_100_LIMIT_S * 1000:.0f} ms",
                f"{load * 1000:.1f} ms",
                load <= LOAD_100_LIMIT_S,
            )
        )
    for size in report.sizes:
        if size.load_errors:
            report.sanity.append(
                f"{size.cases} cases: in-process load reported {size.load_errors} error(s)"
            )
        if size.check_exit != 0:
            report.sanity.append(f"{size.cases} cases: --check exited {size.check_exit}")
        if size.check_errors:
            report.sanity.append(
                f"{size.cases} cases: --check JSON reported {size.check_errors} error(s)"
            )


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def print_text(report: Report, profile_top: int) -> None:
    print(f"repeats: {report.repeat} (after 1 warm-up); times in ms, min / median")
    print(f"CLI: {shlex.join(report.cli)}")
    print(f"child processes: {report.bytecode}")
    print(f"revision: {report.revision}")
    if report.loadavg_before and report.loadavg_after:
        print(
            "load average before / after: "
            f"{' '.join(f'{x:.2f}' for x in report.loadavg_before)} / "
            f"{' '.join(f'{x:.2f}' for x in report.loadavg_after)} "
            f"({os.cpu_count()} CPUs)"
        )
    print()
    header = (
        f"{'cases':>6} {'lines':>7} {'bare parse':>15} {'(GC off)':>15} "
        f"{'load':>15} {'ratio':>6} {'(vs GC off)':>11} {'--check process':>17}"
    )
    print(header)
    for s in report.sizes:
        print(
            f"{s.cases:>6} {s.lines:>7} "
            f"{ms(s.compose.min):>7}/{ms(s.compose.median):>7} "
            f"{ms(s.compose_gc_off.min):>7}/{ms(s.compose_gc_off.median):>7} "
            f"{ms(s.load.min):>7}/{ms(s.load.median):>7} "
            f"{s.ratio():>5.2f}x {s.ratio_gc_off():>10.2f}x "
            f"{ms(s.check.min):>8}/{ms(s.check.median):>8}"
        )
    print()
    for s in report.sizes:
        print(
            f"{s.cases} cases: pure-Python compose (ruamel.yaml without clib) "
            f"{ms(s.compose_pure.min)} / {ms(s.compose_pure.median)} ms, "
            f"{s.compose_pure.median / s.compose.median:.1f}x the C composer"
        )
    print()
    for s in report.sizes:
        if s.phases:
            print(f"{s.cases} cases, load phases (cumulative, unprofiled):")
            for name, timing in s.phases.items():
                print(f"  {name:<50} {ms(timing.min):>7} / {ms(timing.median):>7}")
            print(f"  {'+ lints = full load':<50} {ms(s.load.min):>7} / {ms(s.load.median):>7}")
    print()
    for s in report.sizes:
        print(
            f"{s.cases} cases: load diagnostics: {s.load_errors} error(s), "
            f"{s.load_warnings} warning(s), {s.load_other} other; "
            f"--check exit {s.check_exit}, JSON errors {s.check_errors}"
        )
    print()
    print("process start-up floor:")
    for name, timing in report.floor.items():
        print(f"  {name:<50} {ms(timing.min):>7} / {ms(timing.median):>7}")
    print()
    print(f"targets ({report.judge_by}):")
    for t in report.targets:
        print(f"  {'PASS' if t.passed else 'FAIL'}  {t.name}: {t.measured} (target {t.limit})")
    for problem in report.sanity:
        print(f"  FAIL  sanity: {problem}")
    if report.profile:
        for key, rows in report.profile.items():
            print()
            print(
                f"profile of load_agent_text (100 cases), top {profile_top} by {key}, ms per load:"
            )
            print(f"  {'ncalls':>10} {'tottime':>8} {'cumtime':>8}  function")
            for r in rows:
                calls = (
                    f"{r['ncalls']}/{r['primitive_calls']}"
                    if r["ncalls"] != r["primitive_calls"]
                    else str(r["ncalls"])
                )
                print(
                    f"  {calls:>10} {r['tottime_ms_per_load']:>8.2f} "
                    f"{r['cumtime_ms_per_load']:>8.2f}  {r['function']}"
                )


def as_json(report: Report) -> dict[str, Any]:
    return {
        "repeat": report.repeat,
        "cli": report.cli,
        "judge_by": report.judge_by,
        "bytecode": report.bytecode,
        "revision": report.revision,
        "cpus": os.cpu_count(),
        "loadavg_before": report.loadavg_before,
        "loadavg_after": report.loadavg_after,
        "sizes": [
            {
                "cases": s.cases,
                "lines": s.lines,
                "bytes": s.bytes,
                "bare_parse": s.compose.as_dict(),
                "bare_parse_gc_off": s.compose_gc_off.as_dict(),
                "bare_parse_pure_python": s.compose_pure.as_dict(),
                "load": s.load.as_dict(),
                "ratio": {"min": s.ratio("min"), "median": s.ratio()},
                "ratio_gc_off": {"min": s.ratio_gc_off("min"), "median": s.ratio_gc_off()},
                "check_process": s.check.as_dict(),
                "load_diagnostics": {
                    "errors": s.load_errors,
                    "warnings": s.load_warnings,
                    "other": s.load_other,
                },
                "check_exit": s.check_exit,
                "check_errors": s.check_errors,
                "load_phases": {name: t.as_dict() for name, t in s.phases.items()},
            }
            for s in report.sizes
        ],
        "floor": {name: t.as_dict() for name, t in report.floor.items()},
        "targets": [asdict(t) for t in report.targets],
        "sanity_failures": report.sanity,
        "profile": report.profile,
        "passed": all(t.passed for t in report.targets) and not report.sanity,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--shared",
        type=Path,
        default=DEFAULT_SHARED,
        help=f"the shared folder (default: {DEFAULT_SHARED})",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help="where the yardstick files are written (default: bench/out/…)",
    )
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per measurement")
    parser.add_argument("--cli", help="command for holodeck-lsp (default: the venv's script)")
    parser.add_argument(
        "--profile", action="store_true", help="cProfile a few loads of the 100-case file"
    )
    parser.add_argument("--profile-loads", type=int, default=5)
    parser.add_argument("--profile-top", type=int, default=15)
    parser.add_argument("--json", action="store_true", help="print machine-readable results")
    parser.add_argument(
        "--judge",
        choices=("median", "min"),
        default="median",
        help="statistic the targets are judged on (default: median)",
    )
    parser.add_argument(
        "--pyc",
        action="store_true",
        help="let the timed processes cache bytecode (in OUT/pycache), as an installed "
        "package does, even where PYTHONDONTWRITEBYTECODE is set",
    )
    parser.add_argument("--no-fail", action="store_true", help="exit 0 even if a target fails")
    parser.add_argument(
        "--wait-import",
        type=float,
        default=0.0,
        help="seconds to keep retrying a failing loader import",
    )
    args = parser.parse_args()

    sys.path.insert(0, str(REPO))
    loader = import_loader(args.wait_import)
    cli = find_cli(args.cli)
    global _child_env
    if args.pyc:
        _child_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        _child_env["PYTHONPYCACHEPREFIX"] = str(args.out.resolve() / "pycache")
        bytecode = f"bytecode cached in {_child_env['PYTHONPYCACHEPREFIX']} (--pyc)"
    elif os.environ.get("PYTHONDONTWRITEBYTECODE"):
        bytecode = (
            "PYTHONDONTWRITEBYTECODE is set: modules without a .pyc are compiled from "
            "source in every process (use --pyc to time an installed package)"
        )
    else:
        bytecode = "bytecode cached as usual (__pycache__)"
    files = {n: generate(args.shared, args.out, n) for n in SIZES}

    report = Report(
        bytecode=bytecode,
        revision=git_revision(),
        repeat=args.repeat,
        cli=cli,
        judge_by=args.judge,
        loadavg_before=os.getloadavg(),
    )
    for cases, path in files.items():
        report.sizes.append(measure_size(loader, cli, path, cases, args.repeat))
    report.floor = measure_floor(cli, args.repeat)
    if args.profile:
        report.profile = profile_loads(loader, files[100], args.profile_loads, args.profile_top)
    report.loadavg_after = os.getloadavg()
    judge(report)

    if args.json:
        json.dump(as_json(report), sys.stdout, indent=2)
        print()
    else:
        print_text(report, args.profile_top)
    failed = any(not t.passed for t in report.targets) or bool(report.sanity)
    return 1 if failed and not args.no_fail else 0


if __name__ == "__main__":
    sys.exit(main())
