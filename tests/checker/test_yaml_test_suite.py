"""Every document of the official YAML test suite (tests/checker/yaml_test_suite/) read by our
YAML layer (`parse_yaml`, what `check` and the server use) and by PyYAML's `safe_load`, what
HoloDeck uses: the verdicts (loads / raises) and the loaded values must agree, except for the
cases listed in docs/checks.md, "Where holodeck-lsp reads YAML differently from PyYAML" — the
one place the differences are kept. A listed case that no longer differs fails too."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import yaml

from holodeck_lsp.checker.diagnostics import Severity
from holodeck_lsp.checker.yaml_document import parse_yaml

ROOT = Path(__file__).resolve().parents[2]
SUITE = json.loads(
    (Path(__file__).parent / "yaml_test_suite" / "cases.json").read_text(encoding="utf-8")
)["cases"]
CHECKS_DOC = ROOT / "docs" / "checks.md"
LISTED_HEADING = "### Where holodeck-lsp reads YAML differently from PyYAML"
_NOT_LOADED = object()


def listed_differences() -> dict[str, str]:
    """Suite case id -> what the table in docs/checks.md says about it."""
    text = CHECKS_DOC.read_text(encoding="utf-8")
    assert LISTED_HEADING in text, f"docs/checks.md lost its section {LISTED_HEADING!r}"
    section = text.split(LISTED_HEADING, 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| `([0-9A-Z]{4}(?:/[0-9]+)?)` \|(.*)$", section, re.M)
    return {case: rest for case, rest in rows}


def comparable(value: Any) -> Any:
    """`value` with NaN made equal to itself and tuples kept apart from lists."""
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, dict):
        return {comparable(key): comparable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [comparable(item) for item in value]
    if isinstance(value, tuple):
        return ("tuple", *map(comparable, value))
    return value


def pyyaml_reading(text: str) -> Any:
    try:
        return comparable(yaml.safe_load(text))
    except yaml.YAMLError:
        return _NOT_LOADED


def our_reading(text: str) -> Any:
    document = parse_yaml(text, {})
    if any(problem.severity == Severity.ERROR for problem in document.problems):
        return _NOT_LOADED
    return comparable(document.value)


def describe(reading: Any) -> str:
    return "refuses it" if reading is _NOT_LOADED else f"loads {reading!r:.80}"


def test_the_suite_is_all_there() -> None:
    assert len(SUITE) == 402
    assert sum(case["invalid"] for case in SUITE) > 80


def test_we_read_the_suite_as_pyyaml_does() -> None:
    differences: dict[str, str] = {}
    for case in SUITE:
        theirs, ours = pyyaml_reading(case["yaml"]), our_reading(case["yaml"])
        if theirs != ours:
            differences[case["id"]] = f"PyYAML {describe(theirs)}; holodeck-lsp {describe(ours)}"
    listed = listed_differences()
    unlisted = {case: why for case, why in differences.items() if case not in listed}
    assert not unlisted, "differences from PyYAML not listed in docs/checks.md:\n" + "\n".join(
        f"{case} ({next(c['name'] for c in SUITE if c['id'] == case)}): {why}"
        for case, why in unlisted.items()
    )
    stale = sorted(set(listed) - set(differences))
    assert not stale, f"listed in docs/checks.md but read as PyYAML does now: {stale}"


def test_the_listed_cases_exist() -> None:
    ids = {case["id"] for case in SUITE}
    assert set(listed_differences()) <= ids
