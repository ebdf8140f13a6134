"""Two hostile inputs located where they are and told in the user's terms: a key written with
a `${VAR}` (`${TENANT}_key:`) is found at that key (checker/yaml_locate.py) and named with the
reference, not its value; an integer longer than Python reads (100,000 digits) is an error at
the number saying so, without Python's internals (checker/yaml11.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
from holodeck_lsp.schema.codes import Code

TENANT = "acme-tenant-51"
HEAD = "name: demo\nmodel:\n  provider: openai\n  name: gpt-4o-mini\ninstructions:\n  inline: hi\n"


def load(tmp_path: Path, text: str) -> list[tuple[Code, int, int, str]]:
    options = LoadOptions(env={"TENANT": TENANT}, global_config=False, lints=False)
    result = load_agent_text(text, tmp_path / "agent.yaml", options)
    return [
        (d.code, d.range.start.line, d.range.start.character, d.message) for d in result.diagnostics
    ]


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        (HEAD + "${TENANT}_key: 1\ntest_cases:\n  - {name: a, input: x}\n", 6, 0),
        (HEAD + "test_cases:\n  - name: a\n    input: x\n    ${TENANT}_key: 1\n", 9, 4),
        (HEAD + "test_cases:\n  - name: a\n    input: x\n    pre_${TENANT}: 1\n", 9, 4),
    ],
)
def test_a_key_written_with_a_variable_is_reported_at_the_key(
    tmp_path: Path, text: str, line: int, column: int
) -> None:
    found = load(tmp_path, text)
    unknown = [entry for entry in found if entry[0] is Code.UNKNOWN_KEY]
    assert [(entry[1], entry[2]) for entry in unknown] == [(line, column)], found
    assert "${TENANT}" in unknown[0][3] and TENANT not in unknown[0][3], unknown


@pytest.mark.parametrize("key", ["temperature", "max_tokens"])
def test_a_100k_digit_integer_is_an_error_at_the_number(tmp_path: Path, key: str) -> None:
    text = HEAD.replace("  name: gpt-4o-mini\n", f"  name: gpt-4o-mini\n  {key}: {'7' * 100_000}\n")
    text += "test_cases:\n  - name: a\n    input: x\n    ground_truth: " + "1" * 100_000 + "\n"
    found = load(tmp_path, text)
    told = [entry for entry in found if "this integer has 100,000 digits" in entry[3]]
    assert [(entry[0], entry[1], entry[2]) for entry in told] == [
        (Code.INVALID_VALUE, 4, len(key) + 4),
        (Code.INVALID_VALUE, 10, 18),
    ], found
    assert "quote it if it is text, or shorten it" in told[0][3]
    for _, line, _, message in found:
        # Whatever else the schema says of the value is at the number too, and short.
        assert line in (4, 10), found
        assert "sys." not in message and "set_int_max_str_digits" not in message, message
        assert len(message) < 300, message[:400]
