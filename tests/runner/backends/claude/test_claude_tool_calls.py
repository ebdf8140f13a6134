"""A Claude turn's tool calls as recorded (claude/tool_calls.py, claude/tool_server.py): the
text of arguments the CLI could not parse, why a call could not run, and the handler refusing
arguments that do not fit the function as Semantic Kernel refuses them."""

from __future__ import annotations

import inspect

from holodeck_lsp.runner.agent_code.function_tools import LoadedTool
from holodeck_lsp.runner.backends.claude.tool_calls import finished_call, pending_call
from holodeck_lsp.runner.backends.claude.tool_server import ToolLog, make_handler


def lookup(ticket_id: int, verbose: bool = False) -> str:
    return f"ticket {ticket_id}"


TOOL = LoadedTool("lookup", "a ticket", lookup, inspect.signature(lookup))


def test_arguments_the_cli_could_not_parse_keep_their_text() -> None:
    unparsed = pending_call(
        "mcp__tools__lookup", {"__unparsedToolInput": {"raw": '{"a": 1', "len": 7}}
    )
    assert (unparsed.args, unparsed.raw_arguments) == ({}, '{"a": 1')
    listed = pending_call("mcp__tools__lookup", [1, 2])
    assert (listed.args, listed.raw_arguments) == ({}, "[1, 2]")
    fine = pending_call("mcp__tools__lookup", {"ticket_id": 7})
    assert (fine.args, fine.raw_arguments) == ({"ticket_id": 7}, None)


def test_why_the_cli_refused_a_call_is_read_from_what_it_told_the_model() -> None:
    log = ToolLog()

    def problem(name: str, sent: object, text: str) -> object:
        call = finished_call(pending_call(name, sent), text, True, log)
        assert call.error == text and call.result is None
        return call.call_problem

    leaked = "<tool_use_error>Error: No such tool available: ls<|channel|>x</tool_use_error>"
    assert problem("ls<|channel|>x", {}, leaked) == "unknown_tool"
    not_json = {"__unparsedToolInput": {"raw": "{", "len": 1}}
    assert problem("mcp__tools__lookup", not_json, "InputValidationError: …") == "invalid_json"
    mistyped = "Input validation error: 'x' is not of type 'integer'"
    assert problem("mcp__tools__lookup", {"ticket_id": "x"}, mistyped) == "bad_arguments"
    assert problem("mcp__calc__add", {"a": 1}, "Error: overflow") is None  # the tool failed


async def test_the_handler_refuses_missing_and_unexpected_arguments() -> None:
    log = ToolLog()
    handler = make_handler(TOOL, log)
    answer = await handler({"ticket_id": 7, "colour": "red"})
    assert answer["is_error"] is True
    text = answer["content"][0]["text"]
    assert text.startswith("Received unexpected argument(s): ['colour'].")
    missing = await handler({"verbose": True})
    assert missing["content"][0]["text"].startswith("Missing required argument(s): ['ticket_id'].")
    ran = await handler({"ticket_id": 7})
    assert ran == {"content": [{"type": "text", "text": "ticket 7"}]}
    call = finished_call(pending_call("mcp__tools__lookup", {"ticket_id": 7, "colour": "red"}),
                         text, True, log)  # fmt: skip
    assert (call.call_problem, call.error) == ("bad_arguments", text)
