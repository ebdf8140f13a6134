"""Go to definition: from an expected tool's name, a tool's `name:` or `function:` to the
function tool's `def` (or, for a wrapper with a `# definition:` line, the method it forwards
to: definition_delegate.py); from a `grader:` value to the grader's definition; from a value
naming a file (`file:`, `test_cases_file:`, a case's files' `path:`) to that file. In a
`test_cases_file` include, an expected tool is looked up in the agents that include it (their
tools, their folder). Files are found and parsed statically (never imported). Answers null when
the text does not parse or the target cannot be found."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.index import path_to_uri, uri_to_path
from holodeck_lsp.server.documents.parsed import parsed_documents
from holodeck_lsp.server.guard import answer_or

if TYPE_CHECKING:
    from holodeck_lsp.server.documents.node_at import NodeAt
    from holodeck_lsp.server.documents.parsed import Parsed


#: An agent's parsed data and its folder (where its tools' files are found).
AgentData = tuple[Any, Path]


def definition_target(
    parsed: Parsed, at: NodeAt, including: Callable[[], Iterable[AgentData]] = tuple
) -> tuple[Path, int, int, int] | None:
    """(file, line, first column, last column) in code points of what the cursor refers to.
    `including` gives the agents that include this file, for an expected tool it does not
    declare itself (an include declares no tools)."""
    from holodeck_lsp.checker.data_walk import data_at
    from holodeck_lsp.server.documents.file_values import names_file, resolve
    from holodeck_lsp.server.documents.references import (
        Target,
        declared_tool,
        grader_target,
        reference_at,
        tool_function,
    )
    from holodeck_lsp.server.features.definition_delegate import delegated

    agent_dir = parsed.agent_dir
    if agent_dir is not None and not at.on_key and names_file(at.path):
        named = resolve(at.path, str(at.node.value), agent_dir)
        return None if named is None else (named[0], 0, 0, 0)
    reference = reference_at(at)
    if reference is None or agent_dir is None:
        return None
    data = parsed.document.value
    if reference.target is Target.GRADER:
        grader = grader_target(reference.text, agent_dir)
        if grader is None or grader.path is None:
            return None
        if grader.signature is not None:
            signature = grader.signature
            start = signature.name_col
            return grader.path, signature.line, start, start + len(signature.name)
        if grader.binding is not None and grader.binding.line >= 0:
            binding = grader.binding
            return grader.path, binding.line, binding.col, binding.col
        return grader.path, 0, 0, 0
    if reference.target is Target.METRIC:
        return None
    if reference.target is Target.EXPECTED_TOOL:
        tool = declared_tool(data, reference.text)
        if tool is None:
            for agent_data, folder in including():
                tool = declared_tool(agent_data, reference.text)
                if tool is not None:
                    agent_dir = folder  # the tool's `file:` is relative to its agent
                    break
    else:
        owner = data_at(data, reference.owner)
        tool = owner if isinstance(owner, Mapping) else None
    if tool is None:
        return None
    function = tool_function(tool, agent_dir)
    if function is None:
        return None
    # A wrapper that names the method it forwards to (an imported BFCL suite's tools.py).
    forwarded = delegated(function.path, function.line)
    if forwarded is not None:
        return forwarded
    start = function.name_col
    return function.path, function.line, start, start + len(function.name)


def _read(path: Path) -> str:
    try:
        return read_file_text(path, "utf-8-sig", yaml=True)
    except (OSError, UnicodeDecodeError):
        return ""


def _agents_data(server: HolodeckServer, agent_uris: Iterable[str]) -> list[AgentData]:
    """The agents' data as the editor has them (else as saved), parsed as the checker does."""
    from holodeck_lsp.checker.yaml_document import parse_yaml

    found = []
    for agent_uri in sorted(agent_uris):
        path = uri_to_path(agent_uri)
        if path is None:
            continue
        opened = server.workspace.text_documents.get(agent_uri)
        text = opened.source if opened is not None else _read(path)
        found.append((parse_yaml(text).value, path.parent))
    return found


async def definition(
    server: HolodeckServer,
    params: types.DefinitionParams,
    agents_including: Callable[[str], set[str]] = lambda uri: set(),
) -> types.Location | None:
    from holodeck_lsp.server.documents.node_at import node_at
    from holodeck_lsp.server.documents.positions import PositionConverter

    parsed = await parsed_documents(server).get(params.text_document.uri)
    if parsed is None:
        return None
    line, character = parsed.converter.from_client(params.position.line, params.position.character)
    at = node_at(parsed.document.root, line, character)
    uri = params.text_document.uri
    target = (
        None
        if at is None
        else definition_target(parsed, at, lambda: _agents_data(server, agents_including(uri)))
    )
    if target is None:
        return None
    path, target_line, start, end = target
    # The Python file's positions are code points too: convert with its own text.
    converter = PositionConverter(_read(path), server.position_encoding)
    start_line, start_char = converter.to_client(target_line, start)
    end_line, end_char = converter.to_client(target_line, end)
    return types.Location(
        uri=path_to_uri(path),
        range=types.Range(
            start=types.Position(line=start_line, character=start_char),
            end=types.Position(line=end_line, character=end_char),
        ),
    )


def register(server: HolodeckServer, agents_including: Callable[[str], set[str]]) -> None:
    parsed_documents(server)  # parse each version in the background as it arrives

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @answer_or(None, "definition")
    async def on_definition(params: types.DefinitionParams) -> types.Location | None:
        return await definition(server, params, agents_including)
