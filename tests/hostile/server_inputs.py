"""Generated hostile documents for the server (nothing large is committed): alias bombs, many
unknown keys, one very long flow line; and malformed request params. Used by
tests/hostile/test_server_requests.py and bench/hostile_server.py."""

from __future__ import annotations

from typing import Any

AGENT_HEAD = (
    "name: hostile\n"
    "model:\n  provider: openai\n  name: gpt-4o-mini\n"
    "instructions:\n  inline: Answer.\n"
)
CASES = "test_cases:\n  - name: one\n    input: hi\n"


def alias_bomb(levels: int, fan_out: int = 8) -> str:
    """A billion-laughs document in mappings and sequences: each level names the previous one
    `fan_out` times, so a walk that follows aliases visits `fan_out ** levels` nodes. The
    bomb sits where walkers look: in a case's `expected_tools` args and a metric."""
    rows = ['  l0: &l0 {grader: "m:f", fuzzy: x, file: a.py, path: b.txt, metric: bleu}']
    for level in range(1, levels + 1):
        refs = ", ".join(f"k{index}: *l{level - 1}" for index in range(fan_out))
        rows.append(f"  l{level}: &l{level} {{{refs}}}")
    return (
        AGENT_HEAD
        + "x_bomb:\n"
        + "\n".join(rows)
        + "\ntest_cases:\n  - name: bomb\n    input: hi\n    expected_tools:\n"
        + f"      - name: t\n        args:\n          a: *l{levels}\n"
    )


def many_unknown_keys(count: int) -> str:
    """An agent whose top level has `count` unknown keys (one diagnostic each)."""
    keys = "".join(f"unknown_{index}: {index}\n" for index in range(count))
    return AGENT_HEAD + keys + CASES


def long_flow_line(megabytes: float) -> str:
    """An agent with one flow sequence of about `megabytes` MiB on a single line."""
    items = "1," * int(megabytes * 1024 * 1024 // 2)
    return AGENT_HEAD + "tags: [" + items + "1]\n" + CASES


#: Params no request accepts, each with what is wrong: (label, params, omit the params key).
def malformed_params(document_uri: str) -> list[tuple[str, Any, bool]]:
    document = {"uri": document_uri}
    return [
        ("params null", None, False),
        ("params missing", None, True),
        ("params a list", [1, 2], False),
        ("no textDocument", {"position": {"line": 0, "character": 0}}, False),
        ("no position", {"textDocument": document}, False),
        (
            "position as strings",
            {"textDocument": document, "position": {"line": "x", "character": "y"}},
            False,
        ),
        (
            "negative line",
            {"textDocument": document, "position": {"line": -1, "character": 0}},
            False,
        ),
        ("textDocument a number", {"textDocument": 5, "position": {"line": 0}}, False),
    ]
