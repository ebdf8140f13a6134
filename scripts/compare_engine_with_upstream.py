#!/usr/bin/env python3
"""Compare holodeck-lsp's grading with upstream HoloDeck's on the same inputs.

Loader verdicts are compared by compare_with_upstream.py; this script compares what the
engine does with a result: code graders (upstream's own `GraderResult` returned, bools,
numbers, exceptions, graders reading the context), `response_path` leaves, numbers in other
digit scripts and regex matchers.

    python scripts/compare_engine_with_upstream.py [--venv DIR]

It runs itself in a scratch virtual environment holding holodeck-ai 0.7.1 (built the first
time, as compare_with_upstream.py does) with this checkout on PYTHONPATH, so one child process
calls both implementations on the very same objects. The project itself never imports
holodeck. Exit status 1 on any disagreement that is not a documented deliberate difference
(docs/grading.md, "Differences from upstream HoloDeck").
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))


# ------------------------------------------------------------------------------ the child


def _graders() -> list[tuple[str, Any]]:
    from holodeck.lib.test_runner.code_grader import GraderResult

    def reads_context(ctx: Any) -> Any:
        # A grader written for HoloDeck: every attribute its context has.
        call = ctx.tool_invocations[0]
        assert isinstance(ctx.turn_config, dict)
        seen = (call.name, call.args, call.result, call.bytes, call.duration_ms, call.error)
        ok = seen[0] == "lookup" and ctx.retrieval_context == ("page 28",)
        return GraderResult(score=1.0 if ok else 0.0, reason=f"{ctx.test_case_name}")

    def raises(ctx: Any) -> Any:
        raise ValueError("bad program")

    return [
        ("upstream result, passed", lambda ctx: GraderResult(score=1.0, passed=True)),
        ("upstream result, derived", lambda ctx: GraderResult(score=0.3)),
        (
            "upstream result, all fields",
            lambda ctx: GraderResult(score=0.8, passed=False, reason="r", details={"a": 1}),
        ),
        ("bool true", lambda ctx: True),
        ("bool false", lambda ctx: False),
        ("float", lambda ctx: 0.7),
        ("int", lambda ctx: 1),
        ("raises", raises),
        ("returns None", lambda ctx: None),
        ("returns str", lambda ctx: "1.0"),
        ("reads the context", reads_context),
    ]


def _compare_graders() -> list[dict[str, Any]]:
    from holodeck.lib.test_runner.code_grader import build_grader_context, invoke_grader
    from holodeck.models.test_result import ToolInvocation as TheirInvocation

    from holodeck_lsp.engine.code_graders import GraderContext, run_code_grader
    from holodeck_lsp.schema.metrics import CodeMetric
    from holodeck_lsp.schema.results import ToolInvocation

    args, result = {"year": 2009}, [1, 2]
    fields = {
        "turn_input": "what is the net cash?",
        "agent_response": "206588",
        "ground_truth": "206588",
        "retrieval_context": ["page 28"],
        "turn_index": 0,
        "test_case_name": "case-1",
        "turn_config": {"input": "what is the net cash?"},
    }
    theirs_ctx = build_grader_context(
        **fields,
        tool_invocations=[
            TheirInvocation(name="lookup", args=args, result=result, bytes=len(json.dumps(result)))
        ],
    )
    ours_ctx = GraderContext(
        **{**fields, "retrieval_context": ("page 28",)},
        tool_invocations=(ToolInvocation(name="lookup", args=args, result=result),),
    )
    rows = []
    for label, grader in _graders():
        theirs, _details, _error = invoke_grader(
            grader, theirs_ctx, metric_name=label, threshold=None
        )
        ours = run_code_grader(grader, CodeMetric(grader="graders:g"), ours_ctx, timeout=10.0)
        rows.append(
            {
                "what": f"grader: {label}",
                "upstream": [theirs.score, theirs.passed, theirs.error is not None],
                "ours": [ours.score, ours.passed, ours.error is not None],
                "ours_error": ours.error,
            }
        )
    return rows


_PATH_CASES = [
    ('{"ok": true}', "ok"),
    ('{"ok": false}', "ok"),
    ('{"answer": null}', "answer"),
    ('{"answer": 1e-07}', "answer"),
    ('{"answer": 25587}', "answer"),
    ('{"answer": 25587.0}', "answer"),
    ('{"a": {"b": [1, "x"]}}', "a.b[1]"),
    ('{"a": [1]}', "a"),
]


def _compare_response_paths() -> list[dict[str, Any]]:
    from holodeck.lib.evaluators.response_path import extract as their_extract

    from holodeck_lsp.engine.evaluators.response_path import ResponsePathError, extract

    rows = []
    for response, path in _PATH_CASES:
        theirs, _ = their_extract(response, path)
        try:
            ours: str | None = extract(response, path)
        except ResponsePathError:
            ours = None
        rows.append(
            {"what": f"response_path {path} of {response}", "upstream": theirs, "ours": ours}
        )
    return rows


_NUMBERS = [
    ("\u0662\u0665\u0665\u0668\u0667", {}),  # Arabic-Indic 25587
    ("\u0968\u096b\u096b\u096e\u096d.\u096b", {}),  # Devanagari 25587.5
    ("\u0661\u0664.\u0661\u0664%", {"accept_percent": True}),
    ("\u0662\u0665,\u0665\u0668\u0667", {"accept_thousands_separators": True}),
    ("25587", {}),
    (" -0.5 ", {}),
    ("1.5e-3", {}),
    ("25,587", {"accept_thousands_separators": True}),
    ("14.14%", {"accept_percent": True}),
]
#: Inputs where we differ on purpose (docs/grading.md): upstream's float() reads them.
_DELIBERATE_NUMBERS = [
    ("1,5", {"accept_thousands_separators": True}),  # upstream: 15
    ("nan", {}),
    ("inf", {}),
]


def _compare_numbers() -> list[dict[str, Any]]:
    from holodeck.lib.evaluators.deterministic import _try_parse_number

    from holodeck_lsp.engine.evaluators.numeric import NotANumber, parse_number

    rows = []
    for deliberate, cases in ((False, _NUMBERS), (True, _DELIBERATE_NUMBERS)):
        for text, flags in cases:
            theirs, _ = _try_parse_number(
                text,
                accept_percent=flags.get("accept_percent", False),
                accept_thousands_separators=flags.get("accept_thousands_separators", False),
            )
            try:
                ours: float | None = float(parse_number(text, **flags))
            except NotANumber:
                ours = None
            rows.append(
                {
                    "what": f"numeric {text!r} {flags}",
                    "upstream": theirs,
                    "ours": ours,
                    "deliberate": deliberate,
                }
            )
    return rows


_REGEXES = [
    ("ab{e<=1}", ["ab{e<=1}", "ac", "ab"]),
    ("[[:digit:]]+", ["12", ":]]", "[]"]),
    ("[a-z--[aeiou]]", ["b", "b--[a]"]),
    (r"\w+", ["a\u0301", "abc", "\u0663"]),
    (r"\s", ["\x1c", " "]),
    ("(?i)k", ["\u212a", "K"]),
    ("^2009.*$", ["2009 annual", "fy2009"]),
    (r"\d+", ["2009", "2009.0", "\u0662\u0660"]),
]


def _compare_regexes() -> list[dict[str, Any]]:
    import re
    import warnings

    from holodeck.lib.test_runner.tool_arg_matcher import match_regex as their_match

    from holodeck_lsp.engine.matchers import match_regex
    from holodeck_lsp.schema.matchers import RegexMatcher

    rows = []
    for pattern, subjects in _REGEXES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compiled = re.compile(pattern)
        for subject in subjects:
            rows.append(
                {
                    "what": f"regex {pattern!r} on {subject!r}",
                    "upstream": their_match(compiled, subject),
                    "ours": match_regex(RegexMatcher(compiled), subject, timeout=5.0),
                }
            )
    return rows


def child() -> int:
    rows = [
        *_compare_graders(),
        *_compare_response_paths(),
        *_compare_numbers(),
        *_compare_regexes(),
    ]
    print(json.dumps(rows))
    return 0


# ------------------------------------------------------------------------------ the parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--venv", type=Path, default=Path(tempfile.gettempdir()) / "holodeck-upstream"
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child()
    from compare_with_upstream import UPSTREAM, upstream_python

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    ran = subprocess.run(
        [str(upstream_python(args.venv)), __file__, "--child"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if ran.returncode != 0:
        print(ran.stderr, file=sys.stderr)
        return 2
    rows = json.loads(ran.stdout.strip().splitlines()[-1])
    disagreements = 0
    for row in rows:
        same = row["upstream"] == row["ours"]
        if row.get("deliberate"):
            print(f"deliberate {row['what']}: upstream {row['upstream']!r}, ours {row['ours']!r}")
        elif not same:
            disagreements += 1
            print(
                f"DISAGREE {row['what']}\n  upstream: {row['upstream']!r}\n  ours: {row['ours']!r}"
            )
            if row.get("ours_error"):
                print(f"  ours error: {row['ours_error']}")
    compared = len([row for row in rows if not row.get("deliberate")])
    print(f"{compared - disagreements}/{compared} inputs: same result as {UPSTREAM}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
