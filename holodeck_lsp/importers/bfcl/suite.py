"""The imported suite's text: agent.yaml (one multi-turn case per record, expected_tools from
the ground truth), tools.py (one function a BFCL method, calling bfcl_state) and data/ (the
chosen records in BFCL's own files, which the tools and the grader read)."""

from __future__ import annotations

import json
import keyword
from collections.abc import Mapping, Sequence
from typing import Any

from holodeck_lsp.importers.bfcl.calls import Call
from holodeck_lsp.importers.bfcl.errors import ImportInputError
from holodeck_lsp.importers.bfcl.records import CLASSES, BfclRecord
from holodeck_lsp.importers.bfcl.tool_docs import ToolDoc

#: The input of a miss_func turn where BFCL sends no message, only the withheld function.
MISSING_FUNCTION_TURN = (
    "(No new request. {names} can be used now: carry on with what I asked before.)"
)
METRIC_NAME = "bfcl_equivalent"


def _no_env(json_text: str) -> str:
    """HoloDeck substitutes `${VAR}` into the file's text before parsing it, with no escape,
    and BFCL's texts hold some (`at ${price} per share`). `\\x24` is `$` in a YAML
    double-quoted string, which every `${` here is in: the value keeps its `${`, and the
    substitution no longer sees one."""
    return json_text.replace("${", "\\x24{")


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is a subset of YAML's)."""
    return _no_env(json.dumps(text, ensure_ascii=False))


def _flow(value: Any) -> str:
    """A literal argument as YAML flow (JSON is YAML; strings always quoted, so `no` stays a
    string under YAML 1.1 too)."""
    return _no_env(json.dumps(value, ensure_ascii=False))


def expected_tools(record: BfclRecord, turn: int, docs: Mapping[str, ToolDoc]) -> list[str]:
    """YAML lines of one turn's expected_tools: each ground-truth call with literal argument
    matchers; a call repeated with the same arguments is one entry with `count`."""
    grouped: dict[tuple[str, str], tuple[str, dict[str, Any], int]] = {}
    for call in record.calls[turn]:
        named = _named(record, turn, call, docs)
        key = (call.name, json.dumps(named, sort_keys=True))
        _, _, count = grouped.get(key, (call.name, named, 0))
        grouped[key] = (call.name, named, count + 1)
    lines: list[str] = []
    for name, named, count in grouped.values():
        if not named and count == 1:
            lines.append(f"          - {name}")
            continue
        lines.append(f"          - name: {name}")
        if named:
            lines.append("            args:")
            lines += [f"              {arg}: {_flow(value)}" for arg, value in named.items()]
        if count > 1:
            lines.append(f"            count: {count}")
    return lines


def _named(
    record: BfclRecord, turn: int, call: Call, docs: Mapping[str, ToolDoc]
) -> dict[str, Any]:
    doc = docs.get(call.name)
    if doc is None:
        raise ImportInputError(
            f"{record.answer_where} (record {record.id}): turn {turn}: ground-truth call "
            f"{call.name}(…) is not a function of its classes "
            f"({', '.join(record.involved_classes)}); fix the record or its involved_classes"
        )
    try:
        return call.named(doc.order)
    except ValueError as error:
        raise ImportInputError(
            f"{record.answer_where} (record {record.id}): turn {turn}: {error}"
        ) from None


def turn_input(record: BfclRecord, turn: int) -> str:
    text = "\n\n".join(message for message in record.turns[turn] if message.strip())
    if text:
        return text
    names = record.missed_function.get(turn) or []
    listed = ", ".join(names) if names else "The functions you were missing"
    return MISSING_FUNCTION_TURN.format(names=listed)


def case_yaml(record: BfclRecord, docs: Mapping[str, ToolDoc]) -> list[str]:
    # The comment directly above the case names its source record (the editor's hover
    # reads `# <dataset>: <id> (<detail>)`); the name is the id too, which the tools use.
    lines = [
        f"  # bfcl: {record.id} ({record.category})",
        f"  - name: {_q(record.id)}",
        "    turns:",
    ]
    for turn in range(len(record.turns)):
        lines.append(f"      - input: {_q(turn_input(record, turn))}")
        tools = expected_tools(record, turn, docs)
        if tools:
            lines.append("        expected_tools:")
            lines += tools
        else:
            lines.append("        # no ground-truth calls on this turn (BFCL checks nothing)")
    return lines


AGENT_HEADER = """\
# {name} — {count} BFCL multi-turn records ({turns} turns) as HoloDeck multi-turn tests.
# Written by `holodeck-lsp import bfcl` ({categories}); regenerate rather than edit by hand.
# Each case's name is its BFCL record id: tools.py and bfcl_grader.py find the record's
# initial_config and ground truth in data/ by it (docs/importing-bfcl.md).
name: {name_q}
description: >-
  BFCL multi-turn function calling with BFCL's own stateful classes as tools
  ({classes}).

# The backend. Ollama by default; to switch, replace this line with one of the two below it.
model: {{provider: ollama, name: "qwen2.5:7b", temperature: 0}}
# model: {{provider: openai, name: "gpt-4o-mini", temperature: 0}}
# model: {{provider: anthropic, name: "claude-sonnet-4-5", temperature: 0}}

instructions:
  inline: |
    You operate the user's systems (file system, messaging, trading, travel, vehicle and
    similar APIs) only through the tools. Do what each request asks with tool calls, using
    what earlier turns found out; when a required detail is missing and no tool can find it,
    ask for it instead of guessing. Reply briefly with what you did.

tools:
"""

METRICS = """
evaluations:
  metrics:
    # The BFCL-equivalent verdict of every turn (bfcl_grader.py): the agent's calls so far
    # replayed on fresh instances reach the ground truth's state and return its results.
    # expected_tools (strict: these exact calls) is the other view; the report shows both.
    - type: code
      name: {metric}
      grader: "bfcl_grader:bfcl_equivalent"
      threshold: 1.0

test_cases:
"""


def tool_yaml(doc: ToolDoc) -> list[str]:
    lines = [
        f"  - name: {doc.name}",
        "    type: function",
        f"    description: {_q(doc.description)}",
        "    file: tools.py",
        f"    function: {doc.name}",
    ]
    if doc.parameters:
        lines.append("    parameters:")
        for name, schema in doc.parameters.items():
            spec = {**schema, "required": name in doc.required}
            lines.append(f"      {name}: {_flow(spec)}")
    return lines


def agent_yaml(
    name: str, records: Sequence[BfclRecord], docs: Sequence[ToolDoc], categories: Sequence[str]
) -> str:
    by_name = {doc.name: doc for doc in docs}
    classes = sorted({doc.class_name for doc in docs})
    header = AGENT_HEADER.format(
        name=name,
        name_q=_q(name),
        count=len(records),
        turns=sum(len(r.turns) for r in records),
        categories=", ".join(categories),
        classes=", ".join(classes),
    )
    lines: list[str] = []
    for doc in docs:
        lines += tool_yaml(doc)
    cases: list[str] = []
    for record in records:
        cases += case_yaml(record, by_name)
    return (
        header
        + "\n".join(lines)
        + "\n"
        + METRICS.format(metric=METRIC_NAME)
        + "\n".join(cases)
        + "\n"
    )


_ANNOTATIONS = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "array": "list[Any]",
    "object": "dict[str, Any]",
}

TOOLS_HEADER = '''\
"""BFCL's multi-turn functions as HoloDeck function tools, one function a method (written by
`holodeck-lsp import bfcl`; regenerate rather than edit). Each call runs on the current test
case's own instances of BFCL's classes (bfcl_state.py says how a call finds them) and returns
the result as BFCL's checker records it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any


def _load_state() -> Any:
    """bfcl_state.py as a module private to this folder (shared with bfcl_grader.py)."""
    path = Path(__file__).resolve().with_name("bfcl_state.py")
    unique = f"_bfcl_state_{abs(hash(path.parent)):x}"
    if unique not in sys.modules:
        spec = importlib.util.spec_from_file_location(unique, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[unique] = module
        spec.loader.exec_module(module)
    return sys.modules[unique]


_call = _load_state().call
'''


def tools_py(docs: Sequence[ToolDoc]) -> str:
    parts = [TOOLS_HEADER]
    for doc in docs:
        for name in [doc.name, *doc.parameters]:
            if not name.isidentifier() or keyword.iskeyword(name):
                raise ImportInputError(f"BFCL function {doc.name}: {name!r} is not a Python name")
        required = [p for p in doc.parameters if p in doc.required]
        optional = [p for p in doc.parameters if p not in doc.required]
        params = [f"{p}: {_annotation(doc.parameters[p])}" for p in required]
        params += [
            f"{p}: {_annotation(doc.parameters[p])} = {_literal(doc.parameters[p].get('default'))}"
            for p in optional
        ]
        arguments = [f'"{p}": {p}' for p in doc.parameters]
        summary = doc.description.replace("\\", "\\\\").replace('"""', "'''")
        # The `# definition:` line sends the editor's go-to-definition to BFCL's method.
        parts.append(
            f"\n\n{_signature(doc.name, params)}\n"
            f'    """{summary}"""\n'
            f"    # definition: bfcl_classes/{CLASSES[doc.class_name][1]}.py "
            f"{doc.class_name}.{doc.name}\n"
            f"{_call_line(doc.name, arguments)}\n"
        )
    return "".join(parts)


# tools.py is written as `ruff format` writes it (double quotes, lines of at most 100, long
# ones split as the formatter splits them), so a suite's formatter leaves it as it is.
_WIDTH = 100


def _literal(value: object) -> str:
    """A default value as Python source, strings in double quotes."""
    if isinstance(value, str):
        text = repr(value)
        if text.startswith("'") and '"' not in value:
            return '"' + text[1:-1].replace("\\'", "'") + '"'
        return text
    if isinstance(value, list):
        return "[" + ", ".join(_literal(item) for item in value) + "]"
    if isinstance(value, dict):
        items = (f"{_literal(k)}: {_literal(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    return repr(value)


def _signature(name: str, params: list[str]) -> str:
    line = f"def {name}({', '.join(params)}) -> str:"
    if len(line) <= _WIDTH:
        return line
    inner = f"    {', '.join(params)}"
    if len(inner) <= _WIDTH:
        return f"def {name}(\n{inner}\n) -> str:"
    return f"def {name}(\n" + "".join(f"    {param},\n" for param in params) + ") -> str:"


def _call_line(name: str, arguments: list[str]) -> str:
    mapping = "{" + ", ".join(arguments) + "}"
    line = f'    return _call("{name}", {mapping})'
    if len(line) <= _WIDTH:
        return line
    inner = f'        "{name}", {mapping}'
    if len(inner) <= _WIDTH:
        return f"    return _call(\n{inner}\n    )"
    body = "".join(f"            {argument},\n" for argument in arguments)
    return f'    return _call(\n        "{name}",\n        {{\n{body}        }},\n    )'


def _annotation(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type")
    return _ANNOTATIONS.get(kind, "Any") if isinstance(kind, str) else "Any"


def data_lines(values: Sequence[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(value, ensure_ascii=False) + "\n" for value in values)
