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

from holodeck_lsp.server.documents.size_limit import MAX_DOCUMENT_CHARS
from tests.hostile.raw_server import RawServer
from tests.hostile.server_inputs import (
    AGENT_HEAD,
    CASES,
    alias_bomb,
    long_flow_line,
    malformed_params,
    many_unknown_keys,
)

INVALID_PARAMS = -32602
REQUEST_CANCELLED = -32800
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


def well_formed(method: str, document_uri: str, line: int) -> dict[str, Any] | None:
    """Params of the right shape for `method` about `document_uri` (None: not sent — a command
    would start a run)."""
    document = {"textDocument": {"uri": document_uri}}
    position = {"line": line, "character": 2}
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": line, "character": 0}}
    extra: dict[str, dict[str, Any] | None] = {
        "textDocument/references": {"position": position, "context": {"includeDeclaration": True}},
        "textDocument/rename": {"position": position, "newName": "renamed"},
        "textDocument/codeAction": {"range": whole, "context": {"diagnostics": []}},
        "textDocument/inlayHint": {"range": whole},
        "textDocument/semanticTokens/full/delta": {"previousResultId": "0"},
        "workspace/symbol": None,
        "workspace/executeCommand": None,
        "workspace/diagnostic": None,
    }
    if method == "workspace/symbol":
        return {"query": "bomb"}
    if method == "workspace/diagnostic":
        return {"previousResultIds": []}
    if method in extra:
        more = extra[method]
        return None if more is None else {**document, **more}
    return {**document, "position": position} if method in POSITIONED else document


async def every_answer(
    session: Session, document_uri: str, line: int, within: float
) -> dict[str, dict[str, Any]]:
    """Every advertised request about the document, sent at once; the answers by method."""
    server = session.server
    sent = {}
    for method in advertised_methods(session.capabilities):
        params = well_formed(method, document_uri, line)
        if params is not None:
            sent[method] = server.request(method, params)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    answers, unanswered = {}, []
    for method, request_id in sent.items():
        try:
            answers[method] = await server.answer(request_id, max(0.0, deadline - loop.time()))
        except AssertionError:
            unanswered.append(method)
    assert unanswered == [], f"unanswered within {within} s: {unanswered}"
    errors = {method: reply["error"] for method, reply in answers.items() if "error" in reply}
    assert errors == {}
    return answers


def decoded_lines(data: list[int]) -> list[int]:
    lines, line = [], 0
    for index in range(0, len(data), 5):
        line += data[index]
        lines.append(line)
    return lines


async def test_an_alias_bomb_gets_every_answer(session: Session) -> None:
    """Nine levels of eight aliases: 8 ** 9 paths, 134 million for a walk following them."""
    text = alias_bomb(9)
    document_uri = session.server.open(session.root / "bomb.agent.yaml", text)
    answers = await every_answer(session, document_uri, line=8, within=ANSWER_WITHIN)
    tokens = answers["textDocument/semanticTokens/full"]["result"]["data"]
    anchor_line = next(i for i, row in enumerate(text.splitlines()) if "&l0" in row)
    assert decoded_lines(tokens).count(anchor_line) == 3  # the grader (2 parts), the metric: once


async def test_ten_thousand_unknown_keys_get_every_answer(session: Session) -> None:
    """Located once per error by a scan of the mapping, they took 13 s in `check`."""
    document_uri = session.server.open(session.root / "keys.agent.yaml", many_unknown_keys(10_000))
    answers = await every_answer(session, document_uri, line=10_010, within=ANSWER_WITHIN)
    symbols = answers["textDocument/documentSymbol"]["result"]
    assert len(symbols) == 10_000 + 4  # name, model, instructions, the keys, test_cases


async def test_a_document_over_the_size_limit_is_refused_with_a_diagnostic(
    session: Session,
) -> None:
    """50 MB on one line took the server to 11.6 GB; over the limit it is never composed."""
    megabytes = MAX_DOCUMENT_CHARS / (1024 * 1024) + 0.1
    path = session.root / "long.agent.yaml"
    document_uri = session.server.open(path, long_flow_line(megabytes))
    answers = await every_answer(session, document_uri, line=7, within=ANSWER_WITHIN)
    assert answers["textDocument/semanticTokens/full"]["result"] is None
    assert answers["textDocument/documentSymbol"]["result"] == []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + ANSWER_WITHIN
    while loop.time() < deadline:
        published = [
            n["params"]["diagnostics"]
            for n in session.server.notifications
            if n["method"] == "textDocument/publishDiagnostics"
            and n["params"]["uri"] == document_uri
        ]
        if published:
            break
        await asyncio.sleep(0.05)
    assert published, "no diagnostics for the document over the limit"
    [diagnostic] = published[-1]
    assert diagnostic["code"] == "HD003"
    assert "more than the editor checks" in diagnostic["message"]
    assert "holodeck-lsp check FILE" in diagnostic["message"]


async def test_a_slow_request_neither_blocks_the_next_nor_ignores_its_cancel(
    session: Session,
) -> None:
    server = session.server
    # Parsed already: its answers need no wait.
    await server.call(
        "textDocument/documentSymbol", {"textDocument": {"uri": session.document_uri}}, 10
    )
    # Its parse takes a second or more (seconds on a loaded machine): a margin over the
    # quick request's answer even when the parse threads and the event loop share one core.
    slow_uri = server.open(session.root / "slow.agent.yaml", many_unknown_keys(40_000))
    slow = server.request("textDocument/semanticTokens/full", {"textDocument": {"uri": slow_uri}})
    quick = server.request(
        "textDocument/hover",
        {"textDocument": {"uri": session.document_uri}, "position": {"line": 0, "character": 1}},
    )
    await server.answer(quick, ANSWER_WITHIN)
    assert slow not in server.answers, "the quick request waited for the slow one"
    assert "result" in await server.answer(slow, ANSWER_WITHIN)

    cancelled_uri = server.open(session.root / "cancelled.agent.yaml", many_unknown_keys(10_001))
    cancelled = server.request(
        "textDocument/semanticTokens/full", {"textDocument": {"uri": cancelled_uri}}
    )
    server.cancel(cancelled)
    reply = await server.answer(cancelled, ANSWER_WITHIN)
    assert reply.get("error", {}).get("code") == REQUEST_CANCELLED, reply
