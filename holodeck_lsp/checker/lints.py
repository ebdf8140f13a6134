"""Lints beyond what HoloDeck checks. Always warnings (or information), never errors, and
each message says it is a holodeck-lsp lint so nobody mistakes it for a HoloDeck rejection.

- HD201 an expected tool name that is not a substring of any declared tool's name (only
  information when MCP tools exist: their tool names are known only at run time);
- HD202 an asserted argument that is not a parameter of the function tool it targets (the
  signature is read statically; `**kwargs` accepts anything);
- HD204 an asserted argument whose name is not a string (`{1: 2}`), which no call can match.

The same walk over expected tools also reports HD125 (a misspelt matcher kind), an error on
purpose: see `matcher_typos`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path as FsPath
from typing import Any

from holodeck_lsp.checker.checked_source import CheckedSource, Path
from holodeck_lsp.checker.data_walk import declared_tools, iter_expected_tools
from holodeck_lsp.checker.diagnostics import Diagnostic, Severity
from holodeck_lsp.checker.matcher_typos import misspelt_matchers
from holodeck_lsp.checker.python_source.signatures import FunctionSignature, function_signature
from holodeck_lsp.checker.suggestions import closest, did_you_mean, suggestion_data
from holodeck_lsp.checker.yaml_document import node_range
from holodeck_lsp.schema.codes import Code

_LINT = " (holodeck-lsp lint)"


def run_lints(
    sources: Sequence[CheckedSource], agent_data: Any, agent_dir: FsPath
) -> list[Diagnostic]:
    tools = declared_tools(agent_data)
    names = [t["name"] for t in tools if isinstance(t.get("name"), str)]
    has_mcp = any(t.get("type") == "mcp" for t in tools)
    signatures = _Signatures(agent_dir)
    diagnostics: list[Diagnostic] = []
    for source in sources:
        for path, entry in iter_expected_tools(source.data):
            if path[: len(source.prefix)] != source.prefix:
                continue
            name = entry.get("name") if isinstance(entry, dict) else entry
            if not isinstance(name, str) or not name:
                continue
            diagnostics.extend(_undeclared(source, path, entry, name, names, has_mcp))
            if isinstance(entry, dict) and isinstance(entry.get("args"), dict):
                targets = [t for t in tools if isinstance(t.get("name"), str) and name in t["name"]]
                diagnostics.extend(
                    _unknown_parameters(source, path, entry["args"], targets, signatures)
                )
                diagnostics.extend(misspelt_matchers(source, path, entry["args"]))
                diagnostics.extend(_non_string_names(source, path, entry["args"]))
    return diagnostics


class _Signatures:
    """Function signatures read once per load: a suite asserts the same few tools
    thousands of times."""

    def __init__(self, agent_dir: FsPath) -> None:
        self.agent_dir = agent_dir
        self.known: dict[tuple[str, str], FunctionSignature | None] = {}

    def get(self, file: str, function: str) -> FunctionSignature | None:
        key = (file, function)
        if key not in self.known:
            self.known[key] = function_signature(self.agent_dir / file, function)
        return self.known[key]


def _name_path(path: Path, entry: Any) -> Path:
    return (*path, "name") if isinstance(entry, dict) else path


def _undeclared(
    source: CheckedSource, path: Path, entry: Any, name: str, declared: list[str], has_mcp: bool
) -> Iterator[Diagnostic]:
    if any(name in tool for tool in declared):
        return
    suggestion = closest(name, declared)
    hint = did_you_mean(repr(suggestion) if suggestion else None, quote="")
    if has_mcp:
        message = (
            f"no declared tool name contains {name!r}; fine if an MCP server provides "
            f"it{hint}{_LINT}"
        )
        severity = Severity.INFORMATION
    else:
        shown = ", ".join(declared) if declared else "none"
        message = (
            f"no declared tool name contains {name!r} (declared: {shown}), so this "
            f"assertion can never pass{hint}{_LINT}"
        )
        severity = Severity.WARNING
    located = source.locate(_name_path(path, entry))
    yield source.diagnostic(
        _name_path(path, entry),
        node_range(located.node),
        Code.UNDECLARED_TOOL,
        message,
        severity,
        suggestion_data(suggestion),
    )


def _unknown_parameters(
    source: CheckedSource,
    path: Path,
    args: dict[Any, Any],
    targets: list[dict[str, Any]],
    signatures: _Signatures,
) -> Iterator[Diagnostic]:
    functions = [t for t in targets if t.get("type") == "function"]
    # Only when every tool the name can reach is a function tool with a readable signature.
    if not functions or len(functions) != len(targets):
        return
    accepted: set[str] = set()
    for tool in functions:
        file, function = tool.get("file"), tool.get("function")
        if not isinstance(file, str) or not isinstance(function, str):
            return
        signature = signatures.get(file, function)
        if signature is None:
            return
        if signature.has_var_keyword:
            return
        accepted.update(signature.keyword_names)
    args_path = (*path, "args")
    for arg in args:
        if not isinstance(arg, str) or arg in accepted:
            continue
        suggestion = closest(arg, sorted(accepted))
        hint = did_you_mean(repr(suggestion) if suggestion else None, quote="")
        yield source.diagnostic(
            (*args_path, arg),
            source.key_range(args_path, arg),
            Code.UNKNOWN_TOOL_PARAMETER,
            f"argument {arg!r} is not a parameter of {functions[0].get('function')}"
            f"({', '.join(sorted(accepted))}), so no call can match it{hint}{_LINT}",
            Severity.WARNING,
            suggestion_data(suggestion),
        )


def _non_string_names(
    source: CheckedSource, path: Path, args: dict[Any, Any]
) -> Iterator[Diagnostic]:
    # HoloDeck accepts `{1: 2}` under args: (and so do we), but a call's arguments are named
    # by strings, so such an assertion can never match.
    args_path = (*path, "args")
    for arg in args:
        if isinstance(arg, str):
            continue
        yield source.diagnostic(
            (*args_path, arg),
            source.key_range(args_path, arg),
            Code.NON_STRING_ARG_NAME,
            f"argument name {arg!r} is a {type(arg).__name__}, not a string, so no call can "
            f'match it (tool arguments are named by strings); quote it: "{arg}"{_LINT}',
            Severity.WARNING,
        )
