"""A Claude turn's tool calls as recorded: what the model sent, what the call got back, and why
a call could not run (docs/running.md, "Tool loop").

The CLI answers an odd call itself and the turn goes on: a name that is no tool gets
"No such tool available", arguments it cannot parse as JSON get an `InputValidationError`
(the raw text kept under `__unparsedToolInput`), arguments that fail the tool's JSON schema
get "Input validation error"; arguments that pass the schema but do not fit the Python
signature are refused by our handler (tool_server.py). Each is recorded with the error text
the model was given and its `call_problem`.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from holodeck_lsp.runner.backends.claude.messages import result_text
from holodeck_lsp.runner.backends.claude.tool_server import TOOL_SERVER, ToolLog
from holodeck_lsp.schema.results import CallProblem, ToolInvocation

#: The key the CLI puts a tool input it could not parse under, with the text as `raw`.
_UNPARSED = "__unparsedToolInput"


@dataclass
class PendingCall:
    """A tool_use the model sent this turn, waiting for its tool_result."""

    name: str
    args: dict[str, Any]
    started: float
    #: The argument text, when the model's input was no JSON object (else None: the CLI
    #: hands over the parsed object).
    raw_arguments: str | None = None
    #: The tool_use block's id (the trace's `gen_ai.tool.call.id`).
    call_id: str | None = None
    invocation: ToolInvocation | None = None


def pending_call(name: str, sent: Any, call_id: str | None = None) -> PendingCall:
    """A tool_use block's call: its arguments as an object, or {} and the text as sent."""
    if isinstance(sent, dict) and set(sent) == {_UNPARSED} and isinstance(sent[_UNPARSED], dict):
        raw = sent[_UNPARSED].get("raw")
        raw_text = raw if isinstance(raw, str) else ""
        return PendingCall(name, {}, time.perf_counter(), raw_text, call_id)
    if isinstance(sent, dict):
        return PendingCall(name, dict(sent), time.perf_counter(), None, call_id)
    return PendingCall(name, {}, time.perf_counter(), json.dumps(sent, ensure_ascii=False), call_id)


def finished_call(
    call: PendingCall,
    content: str | list[dict[str, Any]] | None,
    is_error: bool | None,
    log: ToolLog,
) -> ToolInvocation:
    """The call with its result: our own function's real value and timing when it ran, else
    the text the CLI reported to the model."""
    prefix = f"mcp__{TOOL_SERVER}__"
    handled = (
        log.claim(call.name.removeprefix(prefix), call.args)
        if call.name.startswith(prefix) and call.raw_arguments is None
        else None
    )
    if handled is not None:
        return ToolInvocation(
            name=call.name,
            args=call.args,
            result=handled.result,
            duration_ms=handled.duration_ms,
            error=handled.error,
            call_problem=handled.problem,
            call_id=call.call_id,
        )
    text = result_text(content)
    return ToolInvocation(
        name=call.name,
        args=call.args,
        result=None if is_error else text,
        duration_ms=int((time.perf_counter() - call.started) * 1000),
        error=(text or "tool failed") if is_error else None,
        raw_arguments=call.raw_arguments,
        call_problem=_problem(call, text) if is_error else None,
        call_id=call.call_id,
    )


def unfinished_call(call: PendingCall) -> ToolInvocation:
    return ToolInvocation(
        name=call.name,
        args=call.args,
        error="no result was returned",
        raw_arguments=call.raw_arguments,
        call_id=call.call_id,
    )


def _problem(call: PendingCall, text: str) -> CallProblem | None:
    """Why the CLI refused the call, read from the error it gave the model."""
    if "No such tool available" in text:
        return "unknown_tool"
    if call.raw_arguments is not None:
        return "invalid_json"
    if "Input validation error" in text or "InputValidationError" in text:
        return "bad_arguments"
    return None  # the tool itself failed
