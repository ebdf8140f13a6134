"""Robustness of the loader under arbitrary text: it never raises (nor reports its own crash,
HD000), and every diagnostic range lies inside the document it was computed for.

Three generators: (a) edits of a valid multi-turn agent.yaml (span deletes, random and unicode
text with control characters, duplicated lines, truncation, tabs, CRLF, a BOM, deep `[[[…]]]`,
an alias bomb, a very long line, latin-1 garbage); (b) YAML-flavoured token soup and plain
garbage; (c) random documents built from the schema's own keys, so that the validation and
error-mapping layers see deep, wrong-typed structures and not only syntax errors.
"""

from __future__ import annotations

import json
import os
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from holodeck_lsp.checker.diagnostics import Diagnostic
from holodeck_lsp.checker.loader import LoadOptions, LoadResult, load_agent_text
from holodeck_lsp.schema.codes import Code

VALID = textwrap.dedent(
    """\
    name: "fuzz-agent"
    description: "A valid multi-turn agent that the fuzzer edits."
    model: &model
      provider: openai
      name: "gpt-4o-mini"
      temperature: 0
      api_key: ${FUZZ_KEY}
    instructions:
      inline: |
        You are a financial analyst.
        Use the tools for every calculation.
    tools:
      - name: subtract
        type: function
        description: "Return a minus b."
        file: tools.py
        function: subtract
      - name: files
        type: mcp
        description: "Files."
        command: npx
        args: ["-y", "server"]
    evaluations:
      model:
        <<: *model
        temperature: 0.5
      metrics:
        - type: standard
          metric: numeric
          absolute_tolerance: 0.01
        - type: code
          grader: "fuzz_graders:grade"
    test_cases:
      - name: "multi"
        turns:
          - input: "what was the price in 2007?"
            ground_truth: "60.94"
            expected_tools: [subtract, {name: subtract, args: {a: 1, b: {fuzzy: "2"}}}]
          - input: "and the change?"
            ground_truth: "35.80"
            expected_tools:
              - name: "subtract"
                count: 2
                args:
                  a:
                    regex: "^60\\\\.94$"
                  b: {fuzzy: "25.14"}
            turn_config:
              turn_program: "subtract(60.94, 25.14)"
            evaluations:
              - metric: equality
                case_insensitive: true
            files:
              - path: chart.png
                type: image
      - name: "legacy"
        input: "What was the revenue?"
        ground_truth: "1e3"
        retrieval_context: ["passage"]
    execution:
      parallel_test_cases: 2
    """
)

#: LSP line ends: what an editor counts as a new line.
LINE_BREAK = re.compile(r"\r\n|\r|\n")
#: HOLODECK_FUZZ_EXAMPLES=5000 runs a longer, randomly seeded session; by default the run is
#: short and deterministic.
_EXAMPLES = os.environ.get("HOLODECK_FUZZ_EXAMPLES")
FAST = settings(
    max_examples=int(_EXAMPLES or 200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=_EXAMPLES is None,
    database=None,
)


@pytest.fixture(scope="module")
def agent_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "tools.py").write_text(
        "def subtract(a: float, b: float) -> float:\n    return a - b\n", encoding="utf-8"
    )
    (folder / "fuzz_graders.py").write_text("def grade(ctx):\n    return 1.0\n", encoding="utf-8")
    return folder / "agent.yaml"


def load(text: str, path: Path) -> LoadResult:
    options = LoadOptions(env={"FUZZ_KEY": "sk-test"}, home=path.parent / "home")
    return load_agent_text(text, path, options)


def assert_sound(text: str, path: Path) -> LoadResult:
    result = load(text, path)  # must not raise
    crashed = [d for d in result.diagnostics if d.code is Code.INTERNAL_ERROR]
    assert not crashed, crashed[0].message
    lines = LINE_BREAK.split(text)
    for diagnostic in result.diagnostics:
        assert diagnostic.file == str(path), diagnostic
        assert_inside(diagnostic, lines)
    if result.agent is not None:
        assert not result.errors
    return result


def assert_inside(diagnostic: Diagnostic, lines: list[str]) -> None:
    start, end = diagnostic.range.start, diagnostic.range.end
    assert start <= end, diagnostic
    for position in (start, end):
        assert 0 <= position.line < len(lines), (diagnostic, len(lines))
        assert 0 <= position.character <= len(lines[position.line]), (
            diagnostic,
            lines[position.line][:200],
        )


def test_the_seed_file_is_valid(agent_path: Path) -> None:
    result = assert_sound(VALID, agent_path)
    assert result.agent is not None
    assert result.diagnostics == []


# --------------------------------------------------------------------------- (a) edits

UNICODE = st.characters(blacklist_categories=("Cs",))  # everything but lone surrogates
NASTY = st.sampled_from(
    [
        "\x00", "\x01", "\x07", "\x0b", "\x0c", "\x1b", "\x7f", "\x85", "\u2028", "\u2029",
        "\u200b", "\u202e", "\ufeff", "\ufffe", "\uffff", "\U0001f600", "e\u0301", "\t", "\r",
        "\r\n", "\n", ": ", "- ", "#", "&", "*", "!", "|", ">", "%", "@", "`", "'", '"',
        "{", "}", "[", "]", ",", "?", "${", "${X}", "\\",
    ]
)  # fmt: skip


@st.composite
def edits(draw: st.DrawFn) -> str:
    text = VALID
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(
            st.sampled_from(
                [
                    "delete", "insert", "unicode", "nasty", "duplicate", "truncate", "tabs",
                    "crlf", "cr", "bom", "deep", "bomb", "long", "latin1",
                ]
            )
        )  # fmt: skip
        at = draw(st.integers(0, len(text)))
        if kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 200)) :]
        elif kind == "insert":
            text = text[:at] + draw(st.text(max_size=40)) + text[at:]
        elif kind == "unicode":
            text = text[:at] + draw(st.text(UNICODE, max_size=20)) + text[at:]
        elif kind == "nasty":
            text = text[:at] + "".join(draw(st.lists(NASTY, max_size=6))) + text[at:]
        elif kind == "duplicate":
            lines = text.splitlines(keepends=True)
            if lines:
                first = draw(st.integers(0, len(lines) - 1))
                last = draw(st.integers(first, min(len(lines), first + 12)))
                block = lines[first:last]
                lines[last:last] = block * draw(st.integers(1, 3))
                text = "".join(lines)
        elif kind == "truncate":
            text = text[:at]
        elif kind == "tabs":
            text = re.sub(r"(?m)^(  )+", lambda m: "\t" * (len(m.group(0)) // 2), text)
        elif kind == "crlf":
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        elif kind == "cr":
            text = text.replace("\n", "\r")
        elif kind == "bom":
            text = "\ufeff" + text
        elif kind == "deep":
            depth = draw(st.integers(50, 3000))
            opener, closer = draw(st.sampled_from([("[", "]"), ("{a: ", "}"), ("- ", "")]))
            text = text[:at] + opener * depth + closer * depth + text[at:]
        elif kind == "bomb":
            width, levels = draw(st.integers(2, 10)), draw(st.integers(2, 9))
            bomb = "\nbomb_0: &b0 [" + ",".join(["lol"] * width) + "]\n"
            for level in range(1, levels):
                refs = ",".join([f"*b{level - 1}"] * width)
                bomb += f"bomb_{level}: &b{level} [{refs}]\n"
            text = text[:at] + bomb + text[at:]
        elif kind == "long":
            text = text[:at] + "x" * draw(st.integers(1000, 30_000)) + text[at:]
        else:
            text = draw(st.binary(max_size=300)).decode("latin-1")
    return text


@FAST
@given(text=edits())
def test_edited_agent_file(agent_path: Path, text: str) -> None:
    assert_sound(text, agent_path)


# --------------------------------------------------------------------------- (b) garbage

TOKENS = st.sampled_from(
    [
        "\n", "\n", "\n  ", "\n    ", "  ", " ", "- ", ": ", ":", ",", "{", "}", "[", "]", "&a ",
        "*a", "&b ", "*b", "!!str ", "!!int ", "!!bool ", "!!map ", "!custom ", "? ", "| ",
        "|-\n  ", "> ", "'", '"', "# c", "---\n", "...\n", "%YAML 1.1\n", "\t", "<<: ",
        "${X}", "${FUZZ_KEY}", "name", "model", "provider", "openai", "azure_openai",
        "instructions", "inline", "file", "tools", "type", "function", "mcp", "test_cases",
        "test_cases_file", "turns", "input", "ground_truth", "expected_tools", "args", "count",
        "regex", "fuzzy", "fuzy", "evaluations", "metrics", "metric", "numeric", "grader",
        "code", "absolute_tolerance", "files", "path", "url", "0", "-1", "1e3", "2.5", ".nan",
        "yes", "no", "null", "~", "2009-01-01", "2009-13-45", "0x1F", "010", "1:30", "(",
        "\\", "é", "\U0001f600", "\x85", "\u2028",
    ]
)  # fmt: skip


@FAST
@given(text=st.lists(TOKENS, max_size=120).map("".join))
def test_yaml_flavoured_token_soup(agent_path: Path, text: str) -> None:
    assert_sound(text, agent_path)


@FAST
@given(text=st.text(max_size=400))
def test_arbitrary_text(agent_path: Path, text: str) -> None:
    assert_sound(text, agent_path)


# --------------------------------------------------------------------------- (c) schema-shaped

KEYS = st.sampled_from(
    [
        "name", "model", "provider", "instructions", "inline", "file", "tools", "type",
        "description", "function", "test_cases", "turns", "input", "ground_truth",
        "expected_tools", "args", "count", "regex", "fuzzy", "evaluations", "metrics", "metric",
        "grader", "absolute_tolerance", "relative_tolerance", "files", "path", "url",
        "retrieval_context", "turn_config", "execution", "parallel_test_cases", "temperature",
        "endpoint", "test_cases_file", "threshold", "command", "transport", "a", "b", "zzz",
    ]
)  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["openai", "azure_openai", "function", "code", "numeric", "(x", "m:f", ""]),
)
TREES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(KEYS, children, max_size=5)
    ),
    max_leaves=40,
)


def render(value: Any, indent: int = 0) -> str:
    """Block-style YAML (JSON scalars are valid YAML flow scalars)."""
    pad = " " * indent
    if isinstance(value, dict) and value:
        return "".join(
            f"{pad}{key}:\n{render(item, indent + 2)}"
            if isinstance(item, dict | list) and item
            else f"{pad}{key}: {json.dumps(item)}\n"
            for key, item in value.items()
        )
    if isinstance(value, list) and value:
        out = ""
        for item in value:
            body = render(item, indent + 2)
            out += f"{pad}- {body.lstrip()}" if body.strip() else f"{pad}- {{}}\n"
        return out
    return f"{pad}{json.dumps(value)}\n"


@FAST
@given(tree=st.dictionaries(KEYS, TREES, max_size=8))
def test_schema_shaped_random_documents(agent_path: Path, tree: dict[str, Any]) -> None:
    assert_sound(render(tree), agent_path)


# ------------------------------------------------------- range edge cases (once bugs)

AGENT = VALID.split("tools:", 1)[0]


@pytest.mark.parametrize(
    "text",
    [
        "- a", "- name: x\n- model: y", "---\n", "--- # nothing\n", "---\n# nothing\n",
        AGENT + "evaluations:\n  metrics:\n  - -\n", AGENT + "test_cases:\n  - -\n",
    ],
    ids=["root-list-no-newline", "root-list-2-no-newline", "doc-start", "doc-start-comment",
         "doc-start-then-comment", "empty-nested-metric", "empty-nested-case"],
)  # fmt: skip
def test_ranges_stay_inside_the_document(agent_path: Path, text: str) -> None:
    result = load(text, agent_path)
    lines = LINE_BREAK.split(text)
    assert result.diagnostics
    for diagnostic in result.diagnostics:
        assert_inside(diagnostic, lines)


@pytest.mark.parametrize("separator", ["\x85", "\u2028", "\u2029"], ids=["NEL", "LS", "PS"])
def test_positions_count_only_editor_line_breaks(agent_path: Path, separator: str) -> None:
    text = AGENT + f'author: "one{separator}two"\nresponse_format: ${{FUZZ_UNSET}}\ncolour: x\n'
    result = load(text, agent_path)
    lines = LINE_BREAK.split(text)
    where = {d.code: d.range.start.line for d in result.diagnostics}
    assert where == {
        Code.ENV_VAR_UNSET: next(n for n, line in enumerate(lines) if "FUZZ_UNSET" in line),
        Code.UNKNOWN_KEY: next(n for n, line in enumerate(lines) if "colour" in line),
    }
