"""`claude:` — settings of the Claude Agent SDK backend (used when `model.provider` is
`anthropic`). Every capability is off unless switched on here."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal, Self

from pydantic import Field, StrictBool, model_validator

from holodeck_lsp.schema.base import NonBlankStr, StrictModel, fault
from holodeck_lsp.schema.codes import Code

#: Built-in Claude Code tools a subagent `tools:` list may name (besides `mcp__...` names and
#: the agent's own tools).
BUILTIN_CLAUDE_TOOLS: frozenset[str] = frozenset(
    {
        "Bash",
        "Edit",
        "Glob",
        "Grep",
        "NotebookEdit",
        "Read",
        "Task",
        "TodoWrite",
        "WebFetch",
        "WebSearch",
        "Write",
    }
)

Effort = Literal["low", "medium", "high", "max"]
SettingSource = Literal["user", "project", "local", "all"]


class PermissionMode(StrEnum):
    """How much the agent may do without asking."""

    MANUAL = "manual"
    ACCEPT_EDITS = "acceptEdits"
    ACCEPT_ALL = "acceptAll"


class ExtendedThinkingConfig(StrictModel):
    """Extended thinking: a token budget for reasoning before answering."""

    enabled: bool = Field(default=False, description="Turn extended thinking on. Default false.")
    budget_tokens: int = Field(
        default=10_000,
        ge=1_000,
        le=100_000,
        description="Tokens the model may spend thinking, 1000–100000. Default 10000.",
    )


class BashConfig(StrictModel):
    """Whether the agent may run shell commands."""

    enabled: bool = Field(default=False, description="Allow the Bash tool. Default false.")
    excluded_commands: list[str] = Field(
        default_factory=list, description="Commands the agent may never run. Default none."
    )
    allow_unsafe: bool = Field(
        default=False, description="Allow commands considered unsafe. Default false."
    )


class FileSystemConfig(StrictModel):
    """Which file operations the agent may perform."""

    read: bool = Field(default=False, description="Allow reading files. Default false.")
    write: bool = Field(default=False, description="Allow creating files. Default false.")
    edit: bool = Field(default=False, description="Allow editing existing files. Default false.")


class SubagentSpec(StrictModel):
    """A named helper agent the main agent can delegate to."""

    description: NonBlankStr = Field(
        description="When to use this subagent; the parent agent routes work by it. Required."
    )
    prompt: str | None = Field(
        default=None,
        description="The subagent's system prompt, inline. Give exactly one of `prompt` and "
        "`prompt_file`.",
    )
    prompt_file: NonBlankStr | None = Field(
        default=None,
        description="File holding the subagent's system prompt, relative to agent.yaml; it is "
        "read when the agent is loaded. Give exactly one of `prompt` and `prompt_file`.",
    )
    tools: list[str] | None = Field(
        default=None,
        description="Tools the subagent may use: built-in names (Read, Bash, ...), "
        "`mcp__server__tool` names or the agent's own tool names. All of the parent's tools "
        "when omitted.",
    )
    model: Literal["sonnet", "opus", "haiku", "inherit"] | None = Field(
        default=None,
        description="Model alias for the subagent: `sonnet`, `opus`, `haiku` or `inherit`. "
        "Full model ids are not accepted. Default: the SDK's choice.",
    )

    @model_validator(mode="after")
    def _one_prompt_source(self) -> Self:
        if self.prompt is not None and self.prompt_file is not None:
            raise fault(
                Code.EXCLUSIVE_FIELDS,
                "give either `prompt:` or `prompt_file:`, not both",
                at="prompt_file",
            )
        if self.prompt is None and self.prompt_file is None:
            raise fault(
                Code.EXCLUSIVE_FIELDS,
                "a subagent needs a system prompt: add `prompt:` (inline) or `prompt_file:`",
            )
        if self.prompt is not None and not self.prompt.strip():
            raise fault(Code.BLANK_STRING, "the subagent prompt is blank", at="prompt")
        return self


class ClaudeConfig(StrictModel):
    """Claude Agent SDK settings; every key is optional."""

    working_directory: str | None = Field(
        default=None,
        description="Directory the agent works in and is confined to for file access.",
    )
    permission_mode: PermissionMode = Field(
        default=PermissionMode.MANUAL,
        description="`manual` (ask for everything), `acceptEdits` (file edits allowed) or "
        "`acceptAll` (no checks at all; needs `i_understand_this_is_unsafe: true` to run). "
        "Default `manual`.",
    )
    max_turns: int | None = Field(
        default=None, ge=1, description="Most agent-loop iterations per request (≥ 1)."
    )
    max_concurrent_sessions: int | None = Field(
        default=None,
        ge=1,
        le=500,
        description="When serving: most turns processed at once, 1–500. When omitted it is "
        "derived from the container's memory and `session_memory_estimate_mib`.",
    )
    session_memory_estimate_mib: int = Field(
        default=500,
        ge=50,
        le=2000,
        description="Memory one in-flight turn is assumed to need, in MiB, 50–2000; used to "
        "size the serve concurrency limit. Default 500.",
    )
    extended_thinking: ExtendedThinkingConfig | None = Field(
        default=None, description="Extended thinking (reasoning budget) settings."
    )
    web_search: bool = Field(
        default=False, description="Allow the built-in web search tool. Default false."
    )
    bash: BashConfig | None = Field(default=None, description="Shell command access.")
    file_system: FileSystemConfig | None = Field(
        default=None, description="File read/write/edit access."
    )
    agents: dict[str, SubagentSpec] | None = Field(
        default=None,
        description="Subagents by name. They share the parent's MCP servers; each one's "
        "`tools:` limits what it can use.",
    )
    allowed_tools: list[str] | None = Field(
        default=None, description="Only these tools may be used. All configured tools if omitted."
    )
    effort: Effort | None = Field(
        default=None, description="Thinking effort: `low`, `medium`, `high` or `max`."
    )
    max_budget_usd: float | None = Field(
        default=None, gt=0, description="Spending limit per session in US dollars (> 0)."
    )
    fallback_model: str | None = Field(
        default=None, description="Model to switch to when the main model is unavailable."
    )
    disallowed_tools: list[str] | None = Field(
        default=None, description="Tools that may never be used; wins over `allowed_tools`."
    )
    setting_sources: list[SettingSource] | None = Field(
        default=None,
        description="Claude Code settings layers the SDK process loads: any of `user`, "
        "`project`, `local`, or just `all`. When omitted none are loaded (full isolation). "
        "Include `project` if the agent relies on CLAUDE.md files.",
    )
    i_understand_this_is_unsafe: bool = Field(
        default=False,
        description="Confirms that `permission_mode: acceptAll` lets every tool run unchecked "
        "(a prompt injection can then run anything). Required for acceptAll. Default false.",
    )
    disable_default_hooks: StrictBool = Field(
        default=False,
        description="Turn off HoloDeck's built-in hooks (such as credential redaction of tool "
        "output). Must be a real boolean. Default false.",
    )
    disable_subprocess_env_scrub: StrictBool = Field(
        default=False,
        description="Let Bash commands and stdio MCP servers see the full environment, "
        "credentials included. Must be a real boolean. Default false.",
    )

    @model_validator(mode="before")
    @classmethod
    def _legacy_subagents(cls, data: Any) -> Any:
        if isinstance(data, dict) and "subagents" in data:
            raise fault(
                Code.UNKNOWN_KEY,
                "`subagents:` is no longer supported; delete it. Subagents are enabled by "
                "declaring `agents:`; to limit test concurrency use "
                "`execution.parallel_test_cases`.",
                at="subagents",
            )
        return data

    @model_validator(mode="after")
    def _all_stands_alone(self) -> Self:
        sources = self.setting_sources
        if sources is not None and "all" in sources and len(sources) > 1:
            raise fault(
                Code.INVALID_VALUE,
                "`all` already means user, project and local; use [all] on its own or list "
                "the layers you want",
                at="setting_sources",
            )
        return self
