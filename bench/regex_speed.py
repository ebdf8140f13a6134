#!/usr/bin/env python3
"""What do `re`-exact regex matchers cost? (docs/benchmarks.md, "Regex matchers")

Regex matchers are written out from `re`'s parse tree for the `regex` engine
(`engine/re_translation.py`). This times, in a fresh process each: the first use of a pattern
that needs a Unicode table (`\\w`, `\\b`, `(?i)`: one `re` scan over all code points, built
once per process), the first use of a plain pattern, and steady-state `match_regex` calls
against matching and non-matching values. No target: the numbers are recorded.

    .venv/bin/python bench/regex_speed.py [--calls 20000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

PATTERNS = [r"^2009.*$", r"\d+(\.\d+)?", r"(?i)\bnet cash\b.*", r"[A-Z]{3}-\d{4}"]
VALUES = ["2009 annual", "206588.5", "Net Cash in 2009", "ABC-1234", "nothing matches here"]

_FIRST_USE = """
import re, sys, time
from holodeck_lsp.engine.matchers import match_regex
from holodeck_lsp.schema.matchers import RegexMatcher
matcher = RegexMatcher(re.compile(sys.argv[1]))
started = time.perf_counter()
match_regex(matcher, "x", timeout=5.0)
print(time.perf_counter() - started)
"""


def first_use(pattern: str) -> float:
    ran = subprocess.run(
        [sys.executable, "-c", _FIRST_USE, pattern], capture_output=True, text=True, check=True
    )
    return float(ran.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    import re

    from holodeck_lsp.engine.matchers import match_regex
    from holodeck_lsp.schema.matchers import RegexMatcher

    for pattern in PATTERNS:
        print(f"first use of {pattern!r} in a fresh process: {first_use(pattern) * 1000:.0f} ms")
    matchers = [RegexMatcher(re.compile(p)) for p in PATTERNS]
    for matcher in matchers:
        match_regex(matcher, "warm", timeout=1.0)
    started = time.perf_counter()
    calls = 0
    while calls < args.calls:
        for matcher in matchers:
            for value in VALUES:
                match_regex(matcher, value, timeout=1.0)
                calls += 1
    per_call = (time.perf_counter() - started) / calls
    print(f"steady state: {per_call * 1e6:.2f} µs per match_regex call ({calls} calls)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
