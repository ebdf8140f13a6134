"""Function tools run in this process behind an SDK MCP server named `tools` (the model sees
`mcp__tools__<name>`). Each session keeps a log of what its handlers did, so a tool call the
CLI reports is matched to the real return value and timing of the function that ran."""

from __future__ import annotations

import asyncio
import inspect
import json
import time
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from holodeck_lsp.runner.agent_code.function_tools import LoadedTool
from holodeck_lsp.runner.backends.json_values import json_safe

#: Name of the in-process MCP server carrying the agent's function tools.
TOOL_SERVER = "tools"


@dataclass
class HandlerCall:
    name: str
    args: dict[str, Any]
    result: Any = None
    error: str | None = None
    duration_ms: int = 0
    claimed: bool = False
    #: The arguments did not fit the function's signature: it was not called.
    problem: Literal["bad_arguments"] | None = None


@dataclass
class ToolLog:
    calls: list[HandlerCall] = field(default_factory=list)

    def claim(self, name: str, args: Mapping[str, Any]) -> HandlerCall | None:
        """The oldest unclaimed handler call of `name` with these arguments."""
        for call in self.calls:
            if not call.claimed and call.name == name and call.args == dict(args):
                call.claimed = True
                return call
        return None


def make_handler(
    tool: LoadedTool, log: ToolLog
) -> Callable[[dict[str, Any]], typing.Awaitable[dict[str, Any]]]:
    accepted = {
        name
        for name, p in tool.signature.parameters.items()
        if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    }
    takes_kwargs = any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in tool.signature.parameters.values()
    )
    is_async = inspect.iscoroutinefunction(tool.function)

    async def handler(args: dict[str, Any]) -> dict[str, Any]:
        call = HandlerCall(name=tool.name, args=dict(args))
        log.calls.append(call)
        misfit = _signature_misfit(tool.signature, args, accepted, takes_kwargs)
        if misfit is not None:
            # Refused as Semantic Kernel refuses it, so both backends answer alike.
            call.problem, call.error = "bad_arguments", misfit
            return {"content": [{"type": "text", "text": misfit}], "is_error": True}
        kwargs = args if takes_kwargs else {k: v for k, v in args.items() if k in accepted}
        started = time.perf_counter()
        try:
            if is_async:
                value = await tool.function(**kwargs)
            else:
                # Off the event loop: the CLI's control messages keep flowing while it runs.
                value = await asyncio.to_thread(tool.function, **kwargs)
                if inspect.isawaitable(value):
                    value = await value
        except Exception as error:
            call.duration_ms = int((time.perf_counter() - started) * 1000)
            call.error = f"{type(error).__name__}: {error}"
            return {"content": [{"type": "text", "text": f"Error: {call.error}"}], "is_error": True}
        call.duration_ms = int((time.perf_counter() - started) * 1000)
        call.result = json_safe(value)
        text = value if isinstance(value, str) else json.dumps(call.result, default=str)
        return {"content": [{"type": "text", "text": text}]}

    return handler


def _signature_misfit(
    signature: inspect.Signature, args: Mapping[str, Any], accepted: set[str], takes_kwargs: bool
) -> str | None:
    """What keeps `args` from fitting the function (missing or unexpected names), or None."""
    required = {
        name
        for name, p in signature.parameters.items()
        if p.default is inspect.Parameter.empty
        and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    }
    missing = sorted(required - set(args))
    unexpected = [] if takes_kwargs else sorted(set(args) - accepted)
    if not missing and not unexpected:
        return None
    parts = [f"Missing required argument(s): {missing}." if missing else ""]
    parts.append(f"Received unexpected argument(s): {unexpected}." if unexpected else "")
    reason = " ".join(part for part in parts if part)
    return f"{reason} Please revise the arguments to match the function signature."
