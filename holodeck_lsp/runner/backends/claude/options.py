"""The agent's `claude:` block, tools and MCP servers as the SDK's `ClaudeAgentOptions`.

The CLI's built-in tools are off (`tools=[]`) unless the `claude:` block turns them on;
`allowed_tools` narrows the set, `disallowed_tools` (and `bash.excluded_commands`) remove from
it. Nobody can answer a permission prompt during a run, so the CLI runs in `dontAsk` mode with
every enabled tool pre-approved through `allowed_tools`.
"""

from __future__ import annotations

import typing
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from holodeck_lsp.runner.agent_code.function_tools import LoadedTool
from holodeck_lsp.runner.agent_code.mcp_servers import StdioServer
from holodeck_lsp.runner.backends.claude.tool_schema import parameters_schema
from holodeck_lsp.runner.backends.claude.tool_server import TOOL_SERVER, ToolLog, make_handler
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.claude import ClaudeConfig

if TYPE_CHECKING:
    from claude_agent_sdk import ClaudeAgentOptions, McpServerConfig, SdkMcpTool

_FILE_TOOLS = {
    "read": ("Read", "Glob", "Grep"),
    "write": ("Write",),
    "edit": ("Edit", "NotebookEdit"),
}


def setting_sources(config: ClaudeConfig) -> list[typing.Literal["user", "project", "local"]]:
    """The Claude Code settings the CLI may read (`all` means every one); none by default."""
    sources = config.setting_sources or []
    if "all" in sources:
        return ["user", "project", "local"]
    return [s for s in ("user", "project", "local") if s in sources]


def builtin_tools(config: ClaudeConfig) -> list[str]:
    """The CLI's own tools the `claude:` block turns on (all are off otherwise)."""
    enabled: list[str] = []
    if config.file_system is not None:
        for flag, names in _FILE_TOOLS.items():
            if getattr(config.file_system, flag):
                enabled.extend(names)
    if config.bash is not None and config.bash.enabled:
        enabled.append("Bash")
    if config.web_search:
        enabled.extend(("WebSearch", "WebFetch"))
    return enabled


def working_directory(config: ClaudeConfig, agent_dir: Path | None) -> Path:
    """Where the CLI runs: `claude.working_directory` below the agent's folder, or the folder."""
    base = agent_dir or Path.cwd()
    if config.working_directory:
        return base / config.working_directory
    return base


def agent_options(
    agent: Agent,
    config: ClaudeConfig,
    tools: Sequence[LoadedTool],
    mcp_servers: Sequence[StdioServer],
    *,
    system_prompt: str,
    cli_env: dict[str, str],
    cwd: Path,
    max_turns: int,
    log: ToolLog,
    stderr: deque[str],
) -> ClaudeAgentOptions:
    """The options of one session's CLI; its tool handlers record into `log`, its stderr lines
    go to `stderr`."""
    from claude_agent_sdk import ClaudeAgentOptions, create_sdk_mcp_server, tool

    mcp_name = _function_tool_names(tools)
    functions, builtins, server_rules = _shown_tools(config, tools, mcp_servers)
    sdk_tools: list[SdkMcpTool[Any]] = [
        tool(loaded.name, loaded.description, parameters_schema(loaded))(make_handler(loaded, log))
        for loaded in functions
    ]
    servers: dict[str, McpServerConfig] = {}
    if sdk_tools:
        servers[TOOL_SERVER] = create_sdk_mcp_server(TOOL_SERVER, tools=sdk_tools)
    for server in mcp_servers:
        if server.name in server_rules:
            command, args, env = server.scrubbed_launch()
            servers[server.name] = {
                "type": "stdio",
                "command": command,
                "args": args,
                "env": env,
            }
    allowed = [
        *(mcp_name[t.name] for t in functions),
        *(rule for rules in server_rules.values() for rule in rules),
        *builtins,
    ]
    return ClaudeAgentOptions(
        model=agent.model.name,
        system_prompt=system_prompt,
        tools=builtins,
        mcp_servers=servers,
        strict_mcp_config=True,
        allowed_tools=allowed,
        disallowed_tools=_disallowed_tools(config, mcp_name, mcp_servers),
        permission_mode="dontAsk",
        max_turns=max_turns,  # tool rounds, then the CLI ends the turn (docs/running.md)
        max_budget_usd=config.max_budget_usd,
        effort=config.effort,
        fallback_model=config.fallback_model,
        thinking=_thinking(config),
        setting_sources=setting_sources(config),
        cwd=cwd,
        env=cli_env,
        stderr=stderr.append,
        # Test inputs are data: no `@file` expansion or slash commands.
        verbatim_prompts=True,
    )


def _function_tool_names(tools: Sequence[LoadedTool]) -> dict[str, str]:
    """Each function tool's name -> the name the CLI knows it by (on our in-process server)."""
    return {t.name: f"mcp__{TOOL_SERVER}__{t.name}" for t in tools}


def _shown_tools(
    config: ClaudeConfig, tools: Sequence[LoadedTool], mcp_servers: Sequence[StdioServer]
) -> tuple[list[LoadedTool], list[str], dict[str, list[str]]]:
    """The function tools, built-in tools and MCP servers' rules the model is shown: all of
    them, or only those `claude.allowed_tools` names. An MCP server's rules are `mcp__<name>`
    (the whole server) or `mcp__<name>__<tool>`; a server left without a rule is not started."""
    mcp_name = _function_tool_names(tools)
    functions = list(tools)
    builtins = builtin_tools(config)
    server_rules = {s.name: [f"mcp__{s.name}"] for s in mcp_servers}
    if config.allowed_tools is not None:
        # "Only these tools may be used": the model is not even shown the others.
        wanted = set(config.allowed_tools)
        functions = [t for t in functions if {t.name, mcp_name[t.name]} & wanted]
        builtins = [name for name in builtins if name in wanted]
        for name in server_rules:
            if not {name, f"mcp__{name}", f"mcp__{name}__*"} & wanted:
                server_rules[name] = sorted(w for w in wanted if w.startswith(f"mcp__{name}__"))
        server_rules = {name: rules for name, rules in server_rules.items() if rules}
    return functions, builtins, server_rules


def _disallowed_tools(
    config: ClaudeConfig, mcp_name: dict[str, str], mcp_servers: Sequence[StdioServer]
) -> list[str]:
    """`claude.disallowed_tools` in the CLI's names, and the Bash commands `bash` excludes."""
    server_names = {s.name: f"mcp__{s.name}" for s in mcp_servers}
    disallowed = [
        mcp_name.get(name) or server_names.get(name, name) for name in config.disallowed_tools or []
    ]
    if config.bash is not None:
        disallowed.extend(f"Bash({command}:*)" for command in config.bash.excluded_commands)
    return disallowed


def _thinking(config: ClaudeConfig) -> Any:
    """The CLI's extended-thinking option, when the agent turns it on."""
    if config.extended_thinking is not None and config.extended_thinking.enabled:
        return {"type": "enabled", "budget_tokens": config.extended_thinking.budget_tokens}
    return None
