"""The agent's `type: mcp` tools as stdio servers to start, for every backend.

What a backend needs to start a server is worked out here once, before any SDK is touched:
the launcher found on PATH (`command:` is one of npx, node, uvx, docker), its arguments, and
the environment it gets. Both backends start one server process per session, so test cases
never share a server's state (a memory or file-system server would otherwise carry one case
into the next), exactly as one Claude Code CLI per session starts its own servers.

The server's environment is built, not inherited: a few basics from the run's environment
(PATH, HOME, user, locale, temp folders, proxies and CA bundles, which npx/uvx/docker need to
fetch packages), then the variables of `env_file:`, then `env:`. API keys and every other
variable of the run stay out of the server.

Only `transport: stdio` is run; sse, websocket and http servers are refused with a
BackendInitError that names the tool and the transport.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.runner.agent_code.child_environment import inherited
from holodeck_lsp.runner.backend_errors import BackendInitError
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.tools import MCPTool, TransportType

#: A server also keeps the user's home (the CLI gets a scratch one instead).
_SERVER_ALSO = ("HOME",)

#: Names of the variables the launcher keeps (see `scrubbed_launch`).
KEEP_VARIABLE = "HOLODECK_MCP_ENV_KEYS"
#: Run as `python -I -c LAUNCHER <cwd> <command> <args…>`: keeps only the variables listed in
#: HOLODECK_MCP_ENV_KEYS, moves to <cwd>, and becomes the server (exec on POSIX).
LAUNCHER = f"""\
import json, os, subprocess, sys
keep = set(json.loads(os.environ.get({KEEP_VARIABLE!r}, "[]")))
env = {{key: value for key, value in os.environ.items() if key in keep}}
os.chdir(sys.argv[1])
argv = sys.argv[2:]
if os.name == "nt":
    sys.exit(subprocess.call(argv, env=env))
os.execve(argv[0], argv, env)
"""


@dataclass(frozen=True, slots=True)
class StdioServer:
    """One `type: mcp` tool, ready to start."""

    name: str
    description: str
    #: The launcher's absolute path, found on the run's PATH.
    command: str
    args: tuple[str, ...]
    #: Everything the server process sees.
    env: Mapping[str, str]
    #: The agent's folder: relative paths in `args` mean the same as in agent.yaml.
    cwd: Path
    encoding: str | None
    request_timeout: int
    load_tools: bool
    load_prompts: bool

    def describe(self) -> str:
        """`uvx my-server --flag`, for error messages."""
        return " ".join([Path(self.command).name, *self.args])

    def scrubbed_launch(self) -> tuple[str, list[str], dict[str, str]]:
        """(command, args, env) that start the server through LAUNCHER, for clients that add
        their own environment to the server's (the Claude Code CLI passes all of its own, API
        key included): the launcher drops every variable not in `env` before the server runs."""
        env = {**self.env, KEEP_VARIABLE: json.dumps(sorted(self.env))}
        args = ["-I", "-c", LAUNCHER, str(self.cwd), self.command, *self.args]
        return sys.executable, args, env


def stdio_servers(
    agent: Agent, env: Mapping[str, str], agent_dir: Path | None, *, backend: str
) -> list[StdioServer]:
    """The agent's MCP tools as servers to start; BackendInitError names a tool that cannot
    run (a transport other than stdio, a launcher not on PATH, an unreadable env_file)."""
    folder = agent_dir or Path.cwd()
    return [
        _server(tool, env, folder, backend)
        for tool in agent.tools or []
        if isinstance(tool, MCPTool)
    ]


def _server(tool: MCPTool, env: Mapping[str, str], folder: Path, backend: str) -> StdioServer:
    if tool.transport is not TransportType.STDIO:
        raise BackendInitError(
            f"MCP tool {tool.name!r}: transport {tool.transport.value} is not supported by "
            f"holodeck-lsp's {backend} backend yet: only `transport: stdio` servers (started "
            f"by the run itself) are connected; remote {tool.transport.value} servers are not "
            "implemented. Run the server over stdio, or remove the tool"
        )
    assert tool.command is not None  # the schema requires it for stdio
    launcher = tool.command.value
    found = shutil.which(launcher, path=env.get("PATH") or None)
    if found is None:
        raise BackendInitError(
            f"MCP tool {tool.name!r}: command `{launcher}` was not found on PATH; install it "
            "or add its folder to PATH"
        )
    server_env = inherited(env, also=_SERVER_ALSO)
    if tool.env_file:
        server_env.update(_read_env_file(tool, folder))
    server_env.update(tool.env or {})
    return StdioServer(
        name=tool.name,
        description=tool.description,
        command=str(Path(found).absolute()),
        args=tuple(tool.args or ()),
        env=server_env,
        cwd=folder,
        encoding=tool.encoding,
        request_timeout=tool.request_timeout,
        load_tools=tool.load_tools,
        load_prompts=tool.load_prompts,
    )


def _read_env_file(tool: MCPTool, folder: Path) -> dict[str, str]:
    """`KEY=value` lines (optionally `export KEY=value`, values optionally quoted); blank
    lines and `#` comments are skipped."""
    assert tool.env_file is not None
    path = folder / tool.env_file
    try:
        text = read_file_text(path, "utf-8")
    except OSError as error:
        raise BackendInitError(
            f"MCP tool {tool.name!r}: env_file {tool.env_file!r} cannot be read "
            f"({error.strerror or error}); the path is relative to the agent's folder"
        ) from error
    return parse_env_lines(text.splitlines())


def parse_env_lines(lines: Sequence[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix("export ").partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key.strip()] = value
    return values
