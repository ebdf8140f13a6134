"""Random texts built from the pieces where libyaml and PyYAML part ways (tabs, flow colons,
URLs, tags, anchors, directives, block scalars) read by our YAML layer and by PyYAML's
`safe_load`: the same verdict and the same value, except for the families listed in
docs/checks.md ("Where holodeck-lsp reads YAML differently from PyYAML"), which are not
generated. Seeded; set HOLODECK_FUZZ_SEED to try another sequence (the seed is in every
failure)."""

from __future__ import annotations

import math
import os
import random
import re
from typing import Any

import yaml

from holodeck_lsp.checker.diagnostics import Severity
from holodeck_lsp.checker.yaml_document import parse_yaml

SEED = int(os.environ.get("HOLODECK_FUZZ_SEED", "20261206"))
TEXTS = 1200
PIECES = (
    "a", "b: ", "c: d", "- ", "\n", "\n  ", "\n    ", "\n- ", " ", "\t", "[", "]", "{", "}",
    ", ", ":", "http://x:1", "urn:a:b", "# c", "'q'", '"d\\tz"', "|\n", ">\n", "|2\n", "|-\n",
    "!!str ", "! ", "!x ", "!!int ", "&a ", "*a", "? ", "%FOO x\n", "%YAML 1.3\n", "---\n", "---\t",
    "1", "on", "k:v", "!!set ", "!!omap ", "!!binary aGk=", "\ue03a",
)  # fmt: skip
#: The listed families: `[key:]` / `[key:,]` and `?` keys in a flow sequence.
LISTED = re.compile(r"[^\s,\[{]:[,\]}]|[\[,]\s*\?")
_REFUSED = ("refused",)


def comparable(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, dict):
        return {comparable(key): comparable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [comparable(item) for item in value]
    return value


def pyyaml_reading(text: str) -> Any:
    try:
        return comparable(yaml.safe_load(text))
    except Exception:  # `!!int ''` is a ValueError, not a YAMLError: refused all the same
        return _REFUSED


def our_reading(text: str) -> Any:
    document = parse_yaml(text, {})
    if any(problem.severity == Severity.ERROR for problem in document.problems):
        return _REFUSED
    return comparable(document.value)


def test_random_texts_read_as_pyyaml_reads_them() -> None:
    rng = random.Random(SEED)
    differences: list[str] = []
    compared = 0
    while compared < TEXTS:
        text = "".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 18)))
        if LISTED.search(text):
            continue
        compared += 1
        theirs, ours = pyyaml_reading(text), our_reading(text)
        if theirs != ours:
            differences.append(f"{text!r}: PyYAML {theirs!r:.60}, holodeck-lsp {ours!r:.60}")
    assert not differences, f"seed {SEED}:\n" + "\n".join(differences[:10])
