"""The imported suite's text: one agent file per domain (the policy as instructions, the
domain's tools, one simulated-user case per task, graded at the end as τ² grades) and one
tools file per domain (a forwarding function per τ² tool, calling tau2_state)."""

from __future__ import annotations

import json
import keyword
from collections.abc import Sequence
from dataclasses import dataclass

from holodeck_lsp.importers.tau2.errors import ImportInputError
from holodeck_lsp.importers.tau2.vendored import ToolSpec

GRADER = "tau2_grader:tau2_reward"
METRIC_NAME = "tau2_reward"
NL_METRIC_NAME = "tau2_nl_assertions"
#: τ²'s judge task for NL assertions, in our judge's words (evaluator_nl_assertions.py).
NL_CRITERIA = (
    "The conversation is between a customer service agent and a customer. The agent "
    "satisfies every one of these expected outcomes (each is graded alone; one unmet fails):"
)


@dataclass(frozen=True, slots=True)
class Model:
    provider: str
    name: str

    def flow(self) -> str:
        return f"{{provider: {self.provider}, name: {_q(self.name)}, temperature: 0}}"


@dataclass(frozen=True, slots=True)
class CaseText:
    """One task, ready to write."""

    name: str
    task_id: str
    basis: tuple[str, ...]
    user_instructions: str
    communicate_info: tuple[str, ...]
    nl_assertions: tuple[str, ...]


def _no_env(text: str) -> str:
    """HoloDeck substitutes `${VAR}` into the file's text before parsing it, with no escape;
    `\\x24` is `$` in a YAML double-quoted string, where every `${` here is."""
    return text.replace("${", "\\x24{")


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is a subset of YAML's)."""
    return _no_env(json.dumps(text, ensure_ascii=False))


def _parameter_lines(spec: ToolSpec) -> list[str]:
    lines = []
    for name, schema in spec.parameters.items():
        declared = {**schema, "required": name in spec.required}
        lines.append(f"      {name}: {_no_env(json.dumps(declared, ensure_ascii=False))}")
    return lines


def _tool_lines(domain: str, specs: Sequence[ToolSpec]) -> list[str]:
    lines = ["tools:"]
    for spec in specs:
        lines += [
            f"  - name: {spec.name}",
            "    type: function",
            f"    description: {_q(spec.description)}",
            f"    file: tools_{domain}.py",
            f"    function: {spec.name}",
        ]
        parameter_lines = _parameter_lines(spec)
        if parameter_lines:
            lines += ["    parameters:", *parameter_lines]
    return lines


def _case_lines(case: CaseText, domain: str, user_model: Model, max_turns: int) -> list[str]:
    lines = [
        f"  # τ²: {domain} task {case.task_id}; reward basis {', '.join(case.basis)}",
        f"  - name: {_q(case.name)}",
        "    simulated_user:",
        f"      instructions: {_q(case.user_instructions)}",
        f"      model: {user_model.flow()}",
        f"      max_turns: {max_turns}",
        "      at_end:",
    ]
    if case.communicate_info:
        shown = ", ".join(_q(text) for text in case.communicate_info)
        lines.append(f"        communicate_info: [{shown}]")
    lines += [
        "        evaluations:",
        "          - type: code",
        f"            grader: {_q(GRADER)}",
        f"            name: {METRIC_NAME}",
    ]
    if case.nl_assertions:
        listed = "\n".join(f"- {assertion}" for assertion in case.nl_assertions)
        lines += [
            "          - type: geval",
            f"            name: {NL_METRIC_NAME}",
            f"            criteria: {_q(NL_CRITERIA + chr(10) + listed)}",
            "            strict_mode: true",
        ]
    return lines


def agent_yaml(
    title: str,
    domain: str,
    specs: Sequence[ToolSpec],
    cases: Sequence[CaseText],
    models: tuple[Model, Model],
    max_turns: int,
) -> str:
    agent_model, user_model = models
    lines = [
        f"# {title} — {len(cases)} τ²-bench {domain} tasks as simulated-user conversations.",
        "# Written by `holodeck-lsp import tau2`; regenerate rather than edit by hand.",
        "# Each case's name is `<domain>_<task id>`: tau2_state.py builds its own fresh",
        "# database from tau2_bench/data by it, and tau2_grader.py grades it as τ²'s evaluator",
        "# does; the case passes only if every check of its at_end passes (the product of τ²'s",
        "# rewards; docs/importing-tau2.md).",
        f"name: {_q(title)}",
        "description: >-",
        f"  τ²-bench's {domain} domain: its policy as the instructions, its tools on a",
        "  fresh database per case, a simulated user per task.",
        "",
        f"model: {agent_model.flow()}",
        "",
        "instructions:",
        f"  file: prompts/{domain}_agent.md",
        "",
        *_tool_lines(domain, specs),
        "",
        "test_cases:",
    ]
    for case in cases:
        lines += _case_lines(case, domain, user_model, max_turns)
    return "\n".join(lines) + "\n"


_TYPES = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "array": "list[Any]",
    "object": "dict[str, Any]",
}


def _signature(spec: ToolSpec) -> list[str]:
    parts: list[str] = []
    for name, schema in spec.parameters.items():
        if keyword.iskeyword(name) or not name.isidentifier():
            raise ImportInputError(f"τ² tool {spec.name}: parameter {name!r} is no Python name")
        annotation = _TYPES.get(str(schema.get("type")), "Any")
        if name in spec.required:
            parts.append(f"{name}: {annotation}")
        else:
            default = schema.get("default")
            parts.append(f"{name}: {annotation} | None = {default!r}")
    # Required parameters first: Python's rule; the call passes them by name anyway.
    parts.sort(key=lambda part: "=" in part)
    return parts


def _docstring(text: str) -> str:
    """The description as a docstring, laid out as `ruff format` leaves it."""
    escaped = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').strip()
    lines = [line.rstrip() for line in (escaped or "A τ² tool.").split("\n")]
    body = "\n".join(lines[:1] + [f"    {line}" if line else "" for line in lines[1:]])
    return f'    """{body}"""'


def _wrapped(head: str, items: list[str], tail: str) -> list[str]:
    """`head(items)tail` on one line when it fits in 100 columns, else one item a line (as
    `ruff format` writes it)."""
    line = f"{head}({', '.join(items)}){tail}"
    if len(line) <= 100 or not items:
        return [line]
    indent = " " * (len(head) - len(head.lstrip()) + 4)
    return [f"{head}(", *(f"{indent}{item}," for item in items), f"{indent[:-4]}){tail}"]


def tools_py(domain: str, specs: Sequence[ToolSpec]) -> str:
    lines = [
        f'"""τ²-bench\'s {domain} tools as HoloDeck function tools, one function a tool',
        "(written by `holodeck-lsp import tau2`; regenerate rather than edit). Each call runs on",
        "the current test case's own environment (tau2_state.py says how a call finds it) and",
        'returns what τ² returns to its agent: the result as JSON text, or `Error: ...`."""',
        "",
        "from __future__ import annotations",
        "",
        "import importlib.util",
        "import sys",
        "from pathlib import Path",
        "from typing import Any",
        "",
        "",
        "def _load_state() -> Any:",
        '    """tau2_state.py as a module private to this folder (shared with tau2_grader.py)."""',
        '    path = Path(__file__).resolve().with_name("tau2_state.py")',
        '    unique = f"_tau2_state_{abs(hash(path.parent)):x}"',
        "    if unique not in sys.modules:",
        "        spec = importlib.util.spec_from_file_location(unique, path)",
        "        assert spec is not None and spec.loader is not None",
        "        module = importlib.util.module_from_spec(spec)",
        "        sys.modules[unique] = module",
        "        spec.loader.exec_module(module)",
        "    return sys.modules[unique]",
        "",
        "",
        "_call = _load_state().call",
    ]
    for spec in specs:
        lines += ["", "", *_wrapped(f"def {spec.name}", _signature(spec), " -> str:")]
        lines.append(_docstring(spec.description))
        # locals(): the parameters, by name, as the function was called (nothing else is
        # bound yet).
        lines.append(f"    return _call({_q(domain)}, {_q(spec.name)}, dict(locals()))")
    return "\n".join(lines) + "\n"
