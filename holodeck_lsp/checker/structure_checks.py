"""Rules that relate several fields, checked again on the raw data so they are reported
together with every other fault of the file.

The schema enforces the same rules (for anyone validating data directly), but pydantic only
runs a model's cross-field rules — and a list field's own rules — once everything inside
validates: `test_cases` plus `test_cases_file` would stay hidden behind a bad temperature, a
duplicate tool name behind a malformed tool. Here they are found regardless; the messages
are the schema's own (`schema/messages.py`), so the loader drops the schema's duplicate.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from holodeck_lsp.checker.checked_source import CheckedSource, Path
from holodeck_lsp.checker.data_walk import iter_cases, iter_turn_like
from holodeck_lsp.checker.diagnostics import Diagnostic, Severity
from holodeck_lsp.checker.validation_errors import compact_range
from holodeck_lsp.checker.yaml_document import node_range
from holodeck_lsp.schema import messages
from holodeck_lsp.schema.agent import MAX_TEST_CASES, MAX_TOOLS
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.providers import ENDPOINT_REQUIRED
from holodeck_lsp.schema.test_case import LEGACY_FIELDS, MAX_FILES

#: Where an LLM provider block may stand, and so an azure_openai endpoint is required.
_MODEL_PATHS: tuple[Path, ...] = (("model",), ("embedding_provider",), ("evaluations", "model"))


def check_shapes(
    sources: Sequence[CheckedSource], agent: CheckedSource, merged_data: dict[str, Any]
) -> list[Diagnostic]:
    """`merged_data` is the agent after the global-config providers merge."""
    found = [d for source in sources for d in _case_shapes(source)]
    found.extend(_agent_shapes(agent, merged_data))
    return found


def _error(source: CheckedSource, path: Path, code: Code, message: str, *, key: bool) -> Diagnostic:
    located = source.locate(path)
    if key and located.key is not None:
        where = node_range(located.key)
    elif located.rest or (not key and isinstance(located.node.value, list)):
        where = compact_range(located.node, located.key)
    else:
        where = node_range(located.node)
    return source.diagnostic(path, where, code, message, Severity.ERROR)


def _too_long(
    source: CheckedSource, path: Path, value: Any, limit: int, what: str, where: str, hint: str = ""
) -> Iterator[Diagnostic]:
    if isinstance(value, list) and len(value) > limit:
        message = messages.too_many(limit, what, where, len(value), hint)
        yield _error(source, path, Code.TOO_MANY_ITEMS, message, key=False)


def _case_shapes(source: CheckedSource) -> Iterator[Diagnostic]:
    for path, case in iter_cases(source.data):
        if path[: len(source.prefix)] != source.prefix:
            continue
        if case.get("turns") is not None or case.get("simulated_user") is not None:
            mixed = [name for name in LEGACY_FIELDS if case.get(name) is not None]
            for name in mixed:
                yield _error(
                    source,
                    (*path, name),
                    Code.TURNS_MIXED_WITH_LEGACY,
                    messages.turns_mixed(mixed),
                    key=True,
                )
        elif case.get("input") is None:
            yield _error(
                source, path, Code.NO_INPUT_OR_TURNS, messages.no_input_or_turns(), key=False
            )
    for path, holder in iter_turn_like(source.data):
        if path[: len(source.prefix)] != source.prefix:
            continue
        where = "turn" if "turns" in path else "test case"
        yield from _too_long(
            source, (*path, "files"), holder.get("files"), MAX_FILES, "files", where
        )


def _agent_shapes(agent: CheckedSource, data: dict[str, Any]) -> Iterator[Diagnostic]:
    if data.get("test_cases") is not None and data.get("test_cases_file") is not None:
        yield _error(
            agent,
            ("test_cases_file",),
            Code.TEST_CASES_AND_FILE,
            messages.both_case_sources(),
            key=True,
        )
    yield from _too_long(
        agent,
        ("test_cases",),
        data.get("test_cases"),
        MAX_TEST_CASES,
        "test cases",
        "agent",
        messages.SPLIT_SUITE_HINT,
    )
    tools = data.get("tools")
    yield from _too_long(agent, ("tools",), tools, MAX_TOOLS, "tools", "agent")
    yield from _duplicate_tools(agent, tools)
    yield from _azure_endpoints(agent, data)


def _duplicate_tools(agent: CheckedSource, tools: Any) -> Iterator[Diagnostic]:
    if not isinstance(tools, list):
        return
    seen: dict[str, int] = {}
    for index, tool in enumerate(tools):
        name = tool.get("name") if isinstance(tool, dict) else None
        if not isinstance(name, str):
            continue
        if name in seen:
            yield _error(
                agent,
                ("tools", index, "name"),
                Code.DUPLICATE_TOOL_NAME,
                messages.duplicate_tool(name, seen[name]),
                key=False,
            )
        else:
            seen[name] = index


def _azure_endpoints(agent: CheckedSource, data: dict[str, Any]) -> Iterator[Diagnostic]:
    for path in _MODEL_PATHS:
        model: Any = data
        for element in path:
            model = model.get(element) if isinstance(model, dict) else None
        provider = model.get("provider") if isinstance(model, dict) else None
        if not isinstance(provider, str) or provider not in ENDPOINT_REQUIRED:
            continue
        endpoint = model.get("endpoint")
        if not (isinstance(endpoint, str) and endpoint.strip()):
            yield _error(
                agent,
                (*path, "provider"),
                Code.ENDPOINT_REQUIRED,
                messages.endpoint_required(),
                key=True,
            )
