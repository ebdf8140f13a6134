#!/usr/bin/env python3
"""What reading YAML as PyYAML reads it costs (see docs/benchmarks.md, "Reading YAML as
HoloDeck does"): `parse_yaml` (the YAML layer of `check` and the server) on generated texts,
best and median of `--repeat` runs after one warm-up.

- a 1,000-case suite in the usual block style (no rewriting: the common path);
- the same with every tool argument a URL in a flow mapping (libyaml refuses the `:`; one
  more compose after the bulk swap);
- the same with a tab-led first line in 1,000 block scalars (one more compose);
- hostile long lines: 2 MB of flow URLs on one line, 2 MB of tabs in a comment.

    .venv/bin/python bench/yaml_reading.py [--repeat 7] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from holodeck_lsp.checker.yaml_document import parse_yaml

_HEAD = "name: x\nmodel:\n  provider: ollama\n  name: llama3\ntest_cases:\n"
_CASE = (
    '  - name: c{i}\n    input: "what is {i}?"\n    ground_truth: "{i}"\n'
    "    expected_tools:\n      - name: lookup\n        args: {{a: {i}, b: {b}}}\n"
)


def texts() -> dict[str, str]:
    block = _HEAD + "".join(_CASE.format(i=i, b="x") for i in range(1000))
    urls = _HEAD + "".join(_CASE.format(i=i, b="http://h.example:80/p") for i in range(1000))
    tab_led = '    context: |\n      \tcode\n    ground_truth: "'
    tabs = block.replace('    ground_truth: "', tab_led)
    return {
        "1,000 cases, block style": block,
        "1,000 cases, a URL in each flow mapping": urls,
        "1,000 cases, a tab-led block scalar in each": tabs,
        "2 MB line of flow URLs": "a: [" + ", ".join(["http://h.example:1/p"] * 90_000) + "]\n",
        "2 MB line of tabs in a comment": "a: 1 # " + "\t" * 2_000_000 + "\n",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {}
    for name, text in texts().items():
        parse_yaml(text, {})  # warm-up
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            document = parse_yaml(text, {})
            times.append(time.perf_counter() - start)
        errors = sum(problem.severity == 1 for problem in document.problems)
        results[name] = {
            "kib": round(len(text) / 1024),
            "best_ms": round(min(times) * 1000, 1),
            "median_ms": round(statistics.median(times) * 1000, 1),
            "errors": errors,
        }
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for name, row in results.items():
            print(
                f"{name:45} {row['kib']:>6} KiB  best {row['best_ms']:>8} ms  "
                f"median {row['median_ms']:>8} ms  errors {row['errors']}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
