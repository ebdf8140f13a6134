#!/usr/bin/env python3
"""How many turns per second does the engine grade? (see bench/README.md, docs/benchmarks.md)

Generates a ConvFinQA suite of 116 dialogues (exactly 400 turns; `--cases`) with
`<shared>/tools/gen_convfinqa_agent.py`, loads it, and builds a recorded transcript in which
the agent answers every turn with its ground truth and calls each expected tool with arguments
that satisfy the matchers (about half of the arguments written differently: `"206,588"` for a
fuzzy `206588`, floats for ints), plus an extra `lookup` call per turn. It then times
`grade_case` over the whole transcript — tool-argument matching plus the suite's `numeric`
metric — and reports graded turns per second (min / median over `--repeat` runs, after a
warm-up). Target: >= 20,000 turns/s. Exit status 1 if the target fails (`--no-fail`: 0), or if
any turn that can pass does not (the benchmark must time real, successful grading; a few
ConvFinQA answers are words, e.g. "no", which the numeric metric rightly fails).

    .venv/bin/python bench/grading_speed.py [--cases 116] [--repeat 7] [--json]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

from holodeck_lsp.checker.loader import LoadOptions, load_agent_file
from holodeck_lsp.engine.case_grading import grade_case, turn_specs
from holodeck_lsp.engine.evaluators import NotANumber, parse_number
from holodeck_lsp.engine.turn_grading import TurnOutcome, TurnSpec
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.matchers import FuzzyMatcher, LiteralMatcher, RegexMatcher
from holodeck_lsp.schema.results import ToolInvocation
from holodeck_lsp.schema.test_case import ExpectedTool

try:  # run as a script (bench/ on sys.path) or imported as bench.<module>
    from shared_folder import default_shared, generate_yardstick
except ImportError:
    from bench.shared_folder import default_shared, generate_yardstick

REPO = Path(__file__).resolve().parent.parent
TARGET_TURNS_PER_SECOND = 20_000


def generate(shared: Path, cases: int, out: Path) -> Path:
    agent = out / f"c{cases}" / "agent.yaml"
    return generate_yardstick(shared, cases, agent, script="grading_speed")


def satisfying_value(matcher: object, variant: bool) -> object:
    """An argument value the matcher accepts; `variant` writes it differently."""
    if isinstance(matcher, FuzzyMatcher):
        pattern = matcher.pattern.replace(",", "").strip()
        if pattern.endswith("%"):  # fuzzy reads a trailing % as /100
            return float(pattern[:-1]) / 100
        number = float(pattern)
        return f"{number:,}" if variant else number
    if isinstance(matcher, LiteralMatcher):
        return float(matcher.value) if variant and isinstance(matcher.value, int) else matcher.value
    if isinstance(matcher, RegexMatcher):
        raise SystemExit("the yardstick suite has no regex matchers")
    raise TypeError(matcher)


def outcome_for(spec: TurnSpec) -> TurnOutcome:
    calls = [ToolInvocation(name="lookup", args={"query": spec.input[:30]}, result="")]
    for number, entry in enumerate(spec.expected_tools or ()):
        tool = entry if isinstance(entry, ExpectedTool) else ExpectedTool(name=entry)
        for _ in range(tool.count):
            args = {
                key: satisfying_value(matcher, variant=(number + len(key)) % 2 == 0)
                for key, matcher in (tool.args or {}).items()
            }
            calls.append(ToolInvocation(name=f"tools-{tool.name}", args=args, result=0.0))
    return TurnOutcome(response=spec.ground_truth or "ok", tool_invocations=tuple(calls))


def transcript(agent: Agent) -> list[list[TurnOutcome]]:
    return [[outcome_for(spec) for spec in turn_specs(case)] for case in agent.test_cases or []]


def grade_all(agent: Agent, outcomes: list[list[TurnOutcome]]) -> tuple[int, int]:
    """Grades every case; returns (turns, turns that passed or could not pass)."""
    turns = passed = 0
    for index, (case, case_outcomes) in enumerate(
        zip(agent.test_cases or [], outcomes, strict=True)
    ):
        result = grade_case(agent, case, index, case_outcomes)
        for turn in result.turns or []:
            turns += 1
            # A few ConvFinQA answers are words ("no"): the numeric metric rightly fails them.
            passed += turn.passed or not _is_number(turn.ground_truth)
    return turns, passed


def _is_number(text: str | None) -> bool:
    try:
        parse_number(text or "", accept_percent=True, accept_thousands_separators=False)
    except NotANumber:
        return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=default_shared())
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "grading_speed")
    # 116 ConvFinQA dialogues hold exactly 400 turns: the "400-turn transcript".
    parser.add_argument("--cases", type=int, default=116)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-fail", action="store_true")
    args = parser.parse_args()

    path = generate(args.shared, args.cases, args.out)
    loaded = load_agent_file(path, options=LoadOptions(home=args.out / "home"))
    if loaded.agent is None:
        print("the yardstick suite does not load:", *loaded.errors, sep="\n", file=sys.stderr)
        return 1
    agent = loaded.agent
    outcomes = transcript(agent)
    turns, passed = grade_all(agent, outcomes)  # warm-up, and the sanity check
    if passed != turns:
        print(f"only {passed} of {turns} turns pass: not a valid measurement", file=sys.stderr)
        return 1
    seconds = []
    for _ in range(args.repeat):
        gc.collect()
        start = time.perf_counter()
        grade_all(agent, outcomes)
        seconds.append(time.perf_counter() - start)
    best, median = min(seconds), statistics.median(seconds)
    rate_median = turns / median
    result = {
        "cases": args.cases,
        "turns": turns,
        "seconds_min": best,
        "seconds_median": median,
        "turns_per_second_median": rate_median,
        "turns_per_second_best": turns / best,
        "target": TARGET_TURNS_PER_SECOND,
        "pass": rate_median >= TARGET_TURNS_PER_SECOND,
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"{turns} turns in {args.cases} cases: {best * 1000:.1f} / {median * 1000:.1f} ms "
            f"(min / median of {args.repeat}) = {turns / best:,.0f} / {rate_median:,.0f} turns/s"
        )
        verdict = "PASS" if result["pass"] else "FAIL"
        print(f"{verdict}  grading throughput (median) >= {TARGET_TURNS_PER_SECOND:,} turns/s")
    return 0 if result["pass"] or args.no_fail else 1


if __name__ == "__main__":
    sys.exit(main())
