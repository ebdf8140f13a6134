"""A tiny real MCP server over stdio, for tests: `python tests/fakes/mcp_calc_server.py`.

Tools: `multiply(a, b)`, `divide(a, b)` (fails on b = 0: the server answers `isError`) and
`lookup(query)`. When `MCP_CALC_LOG` names a file, the server
appends one JSON line when it starts (its pid and the names of its environment variables that
have a value) and one per tool call (tool, arguments, result), so a test can prove the real
process ran the call and saw no secret of the parent. `CALC_PREFIX`, when set, is put in front
of every `lookup` answer, so a test can prove the YAML's `env:` reached the server.

Only the standard library and the `mcp` package are imported: the file runs under any
interpreter that has `mcp`, whatever the current directory.
"""

from __future__ import annotations

import json
import os
from typing import Any

from mcp.server.fastmcp import FastMCP

FACTS = {
    "capital of france": "Paris",
    "speed of light": "299792458 m/s",
}

server = FastMCP("calc", log_level="WARNING")


def _log(event: dict[str, Any]) -> None:
    path = os.environ.get("MCP_CALC_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps(event) + "\n")


def _call(tool: str, args: list[Any], **outcome: Any) -> None:
    _log({"event": "call", "pid": os.getpid(), "tool": tool, "args": args, **outcome})


@server.tool()
def multiply(a: float, b: float) -> float:
    """Multiply a by b."""
    result = a * b
    _call("multiply", [a, b], result=result)
    return result


@server.tool()
def divide(a: float, b: float) -> float:
    """Divide a by b."""
    if b == 0:
        _call("divide", [a, b], error="division by zero")
        raise ValueError("division by zero")
    result = a / b
    _call("divide", [a, b], result=result)
    return result


@server.tool()
def lookup(query: str) -> str:
    """Look a fact up by its name, e.g. 'capital of France'."""
    answer = FACTS.get(query.strip().lower(), "unknown")
    result = os.environ.get("CALC_PREFIX", "") + answer
    _call("lookup", [query], result=result)
    return result


if __name__ == "__main__":
    _log(
        {
            "event": "start",
            "pid": os.getpid(),
            "env_keys": sorted(key for key, value in os.environ.items() if value),
            "cwd": os.getcwd(),
        }
    )
    server.run("stdio")
