"""The server answers every request (issue 35): malformed params get the JSON-RPC invalid-params
error for every request method it advertises (read from the initialize result, so a new one is
covered the day it is added); generated hostile documents — alias bombs, tens of thousands of
unknown keys, a line of many megabytes — get an answer to every request within a deadline, and
a slow request neither blocks the next one nor ignores `$/cancelRequest`.

The real server over stdio through a raw JSON-RPC client (tests/hostile/raw_server.py):
pytest-lsp's typed client cannot send params of the wrong shape."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.hostile.raw_server import RawServer
from tests.hostile.server_inputs import AGENT_HEAD, CASES, malformed_params

INVALID_PARAMS = -32602
#: An answer (of any kind) arrives within this: a hang, not a latency figure (shared cores).
ANSWER_WITHIN = 10.0

#: Each capability the server may advertise -> the request methods it stands for.
CAPABILITY_METHODS: dict[str, tuple[str, ...]] = {
    "codeActionProvider": ("textDocument/codeAction",),
    "codeLensProvider": ("textDocument/codeLens",),
    "completionProvider": ("textDocument/completion",),
    "definitionProvider": ("textDocument/definition",),
    "documentLinkProvider": ("textDocument/documentLink",),
    "documentSymbolProvider": ("textDocument/documentSymbol",),
    "executeCommandProvider": ("workspace/executeCommand",),
    "foldingRangeProvider": ("textDocument/foldingRange",),
    "hoverProvider": ("textDocument/hover",),
    "inlayHintProvider": ("textDocument/inlayHint",),
    "referencesProvider": ("textDocument/references",),
    "renameProvider": ("textDocument/rename",),
    "semanticTokensProvider": (
        "textDocument/semanticTokens/full",
        "textDocument/semanticTokens/full/delta",
    ),
    "workspaceSymbolProvider": ("workspace/symbol",),
    "diagnosticProvider": ("textDocument/diagnostic", "workspace/diagnostic"),
}
#: Capabilities that are not request methods.
NOT_REQUESTS = {"positionEncoding", "textDocumentSync", "workspace"}
#: Methods taking a text document and a position: the position's malformed shapes apply.
POSITIONED = {
    "textDocument/hover",
    "textDocument/definition",
    "textDocument/completion",
    "textDocument/references",
    "textDocument/rename",
}


def advertised_methods(capabilities: dict[str, Any]) -> list[str]:
    unknown = set(capabilities) - set(CAPABILITY_METHODS) - NOT_REQUESTS
    assert not unknown, f"a new capability: add its methods to CAPABILITY_METHODS: {unknown}"
    resolving = [
        name
        for name, value in capabilities.items()
        if isinstance(value, dict) and value.get("resolveProvider")
    ]
    assert not resolving, f"a resolve method is advertised: add it here ({resolving})"
    return [method for name in capabilities for method in CAPABILITY_METHODS.get(name, ())]


def malformed_for(method: str, document_uri: str) -> list[tuple[str, Any, bool]]:
    """The malformed shapes that apply to `method` (a method without a position is not sent
    the position's; every method requires params)."""
    shapes = malformed_params(document_uri)
    if method in POSITIONED:
        if method == "textDocument/references":
            position = {"line": 0, "character": 0}
            shapes.append(
                (
                    "references without context",
                    {"textDocument": {"uri": document_uri}, "position": position},
                    False,
                )
            )
        return shapes
    return shapes[:3]


class Session:
    """A started and initialized server with one agent document open."""

    def __init__(self, server: RawServer, capabilities: dict[str, Any], root: Path) -> None:
        self.server = server
        self.capabilities = capabilities
        self.root = root
        self.document_uri = server.open(root / "agent.yaml", AGENT_HEAD + CASES)


@pytest.fixture(scope="module")
async def session(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Session]:
    server = await RawServer.start()
    try:
        root = tmp_path_factory.mktemp("hostile-requests")
        result = await server.initialize(root)
        yield Session(server, result["capabilities"], root)
    finally:
        await server.stop()


async def test_malformed_params_get_the_invalid_params_error(session: Session) -> None:
    server, document_uri = session.server, session.document_uri
    sent: list[tuple[str, str, int]] = []
    for method in advertised_methods(session.capabilities):
        for label, params, omit in malformed_for(method, document_uri):
            sent.append((method, label, server.request(method, params, omit_params=omit)))
    assert len(sent) > 40
    unanswered, wrong = [], []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + ANSWER_WITHIN  # for all of them: the server answers in turn
    for method, label, request_id in sent:
        try:
            reply = await server.answer(request_id, max(0.0, deadline - loop.time()))
        except AssertionError:
            unanswered.append((method, label))
            continue
        error = reply.get("error") or {}
        if error.get("code") != INVALID_PARAMS or "invalid params for " + method not in error.get(
            "message", ""
        ):
            wrong.append((method, label, reply))
    assert unanswered == [] and wrong == []
    # The server still answers well-formed requests afterwards.
    reply = await server.call(
        "textDocument/documentSymbol", {"textDocument": {"uri": document_uri}}, ANSWER_WITHIN
    )
    assert reply["result"], reply


async def test_the_message_says_what_is_wrong(session: Session) -> None:
    server, document_uri = session.server, session.document_uri
    expected = {
        "no position": "params.position: required",
        "position as strings": "params.position.line: must be an integer",
        "negative line": "params.position.line: must be in the range 0 to 2147483647",
        "params missing": "params: required",
    }
    for label, params, omit in malformed_params(document_uri):
        if label not in expected:
            continue
        request_id = server.request("textDocument/hover", params, omit_params=omit)
        reply = await server.answer(request_id, ANSWER_WITHIN)
        assert expected[label] in reply["error"]["message"], (label, reply)


def test_methods_are_read_from_the_capabilities() -> None:
    with pytest.raises(AssertionError, match="a new capability"):
        advertised_methods({"hoverProvider": True, "callHierarchyProvider": True})
