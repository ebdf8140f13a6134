"""`type: mcp` — a Model Context Protocol server, its transports and launchers."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal, Self

from pydantic import Field, field_validator, model_validator

from holodeck_lsp.schema.base import fault
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.tools.base import ToolBase
from holodeck_lsp.schema.tools.catalogue import tool_type_doc


class TransportType(StrEnum):
    """How HoloDeck talks to an MCP server."""

    STDIO = "stdio"
    SSE = "sse"
    WEBSOCKET = "websocket"
    HTTP = "http"


class CommandType(StrEnum):
    """Launchers allowed for a stdio MCP server (nothing else may be spawned)."""

    NPX = "npx"
    NODE = "node"
    UVX = "uvx"
    DOCKER = "docker"


class MCPTool(ToolBase):
    """A Model Context Protocol server whose tools (and prompts) the agent can use."""

    type: Literal["mcp"] = Field(
        default="mcp",
        description=tool_type_doc("mcp"),
    )
    transport: TransportType = Field(
        default=TransportType.STDIO,
        description="`stdio` (spawn a local process; needs `command`), `sse`, `websocket` or "
        "`http` (connect to `url`). Default `stdio`.",
    )
    command: CommandType | None = Field(
        default=None,
        description="Launcher for a stdio server: `npx`, `node`, `uvx` or `docker` (nothing "
        "else is allowed). Required when transport is stdio.",
    )
    args: list[str] | None = Field(
        default=None, description="Arguments passed to `command`, e.g. the server package."
    )
    env: dict[str, str] | None = Field(
        default=None, description="Extra environment variables for the server process."
    )
    env_file: str | None = Field(
        default=None, description="A .env file whose variables are given to the server process."
    )
    encoding: str | None = Field(
        default=None, description="Text encoding of the stdio streams. Default utf-8."
    )
    url: str | None = Field(
        default=None,
        description="Server URL for sse/websocket/http transports (required for those). Must "
        "be https://, wss:// or ws://; plain http:// only for localhost, 127.0.0.1 or [::1].",
    )
    headers: dict[str, str] | None = Field(
        default=None, description="HTTP headers sent with every request, e.g. authorization."
    )
    timeout: float | None = Field(
        default=None, description="Connection timeout in seconds for network transports."
    )
    sse_read_timeout: float | None = Field(
        default=None, description="How long, in seconds, to wait for the next SSE event."
    )
    terminate_on_close: bool | None = Field(
        default=None, description="Ask the http server to end the session when closing."
    )
    config: dict[str, Any] | None = Field(
        default=None, description="Server-specific settings passed through unchecked."
    )
    load_tools: bool = Field(
        default=True, description="Offer the server's tools to the agent. Default true."
    )
    load_prompts: bool = Field(
        default=True, description="Load the server's prompt templates. Default true."
    )
    request_timeout: int = Field(
        default=60, gt=0, description="Timeout for each server call in seconds (> 0). Default 60."
    )
    is_retrieval: bool = Field(
        default=False,
        description="Treat this server's results as retrieved context for RAG metrics "
        "(faithfulness, contextual relevancy/precision/recall). Default false.",
    )
    registry_name: str | None = Field(
        default=None,
        description="Reverse-DNS name of the server in the MCP registry (e.g. "
        "`io.github.user/server`), recorded when it was added from the registry.",
    )

    @field_validator("url")
    @classmethod
    def _url_scheme(cls, value: str | None) -> str | None:
        if value is None:
            return value
        if value.startswith("http://"):
            if not value.startswith(("http://localhost", "http://127.0.0.1", "http://[::1]")):
                raise fault(
                    Code.INVALID_VALUE,
                    "plain http:// is only allowed for localhost; use https:// for a remote server",
                )
        elif not value.startswith(("https://", "wss://", "ws://")):
            raise fault(
                Code.INVALID_VALUE,
                "url must start with https://, wss:// or ws:// (or http://localhost)",
            )
        return value

    @model_validator(mode="after")
    def _transport_needs_endpoint(self) -> Self:
        at = "transport" if "transport" in self.model_fields_set else None
        if self.transport is TransportType.STDIO and self.command is None:
            raise fault(
                Code.MISSING_FIELD,
                "a stdio MCP server needs `command:` (npx, node, uvx or docker)",
                at=at,
            )
        if self.transport is not TransportType.STDIO and self.url is None:
            raise fault(
                Code.MISSING_FIELD,
                f"transport {self.transport.value} needs `url:` (the server address)",
                at=at,
            )
        return self
