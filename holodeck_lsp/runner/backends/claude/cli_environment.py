"""What the Claude Code CLI process sees: the key, locale/PATH/proxy/CA variables,
`CLAUDE_CODE_*`/`DISABLE_*` settings, `ENABLE_TOOL_SEARCH` (false unless the caller sets
it: every tool offered, none deferred), and nothing else — every other inherited variable is
blanked (the SDK merges over `os.environ`, so blanking is the only way to withhold it).

Unless the agent asks for `user` settings, `HOME` and `CLAUDE_CONFIG_DIR` point at a scratch
folder, so no user configuration leaks in and nothing is written to the real home.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from holodeck_lsp.runner.agent_code.child_environment import inherited
from holodeck_lsp.runner.agent_code.mcp_servers import StdioServer
from holodeck_lsp.runner.backends.base import BackendInitError
from holodeck_lsp.schema.llm import AuthProvider, LLMProvider

#: Besides the system basics (child_environment), the CLI keeps its own settings.
_PASS_THROUGH_PREFIXES = ("CLAUDE_CODE_", "DISABLE_")
#: Credentials among the pass-through prefixes: only set when this backend chooses to.
_WITHHELD = frozenset({"CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR"})
#: Quiet defaults; a caller's env may override them.
_QUIET = {
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
}


def cli_environment(
    model: LLMProvider,
    env: Mapping[str, str],
    *,
    mcp_servers: Sequence[StdioServer],
    user_settings: bool,
    scratch: Path,
) -> dict[str, str]:
    """What the CLI process sees: allow-listed variables, the credential, quiet defaults."""
    auth = model.auth_provider or AuthProvider.API_KEY
    if auth not in (AuthProvider.API_KEY, AuthProvider.OAUTH_TOKEN):
        raise BackendInitError(
            f"model.auth_provider {auth.value} is not supported by holodeck-lsp yet; "
            "use api_key (ANTHROPIC_API_KEY) or oauth_token (CLAUDE_CODE_OAUTH_TOKEN)"
        )
    controlled = inherited(env, prefixes=_PASS_THROUGH_PREFIXES, withheld=_WITHHELD)
    for key, value in _QUIET.items():
        controlled.setdefault(key, value)
    secret = model.api_key.get_secret_value() if model.api_key is not None else ""
    if auth is AuthProvider.API_KEY:
        key = secret or env.get("ANTHROPIC_API_KEY", "")
        if not key.strip():
            raise BackendInitError(
                "provider anthropic needs an API key: set ANTHROPIC_API_KEY or "
                "model.api_key (e.g. api_key: ${ANTHROPIC_API_KEY})"
            )
        controlled["ANTHROPIC_API_KEY"] = key
    else:
        token = secret or env.get("CLAUDE_CODE_OAUTH_TOKEN", "")
        if not token.strip():
            raise BackendInitError(
                "model.auth_provider oauth_token needs CLAUDE_CODE_OAUTH_TOKEN or "
                "model.api_key holding the token"
            )
        controlled["CLAUDE_CODE_OAUTH_TOKEN"] = token
    # Every tool of the agent is offered to the model, as the other backends do: past a share
    # of the context the CLI would otherwise defer MCP tools behind its tool search (the
    # model sees a search tool, not the agent's tools), so a suite with many tools — an
    # imported BFCL one has 49 — would test the CLI's search instead of the agent. Claude
    # Code's ENABLE_TOOL_SEARCH=false turns the deferral off; a caller's value is kept.
    controlled["ENABLE_TOOL_SEARCH"] = env.get("ENABLE_TOOL_SEARCH") or "false"
    if mcp_servers:
        longest = max(server.request_timeout for server in mcp_servers)
        controlled.setdefault("MCP_TOOL_TIMEOUT", str(longest * 1000))  # milliseconds
    if "max_tokens" in model.model_fields_set and model.max_tokens is not None:
        # Only when written: the schema's default (1000) would cut agentic answers short.
        controlled["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] = str(model.max_tokens)
    base_url = model.endpoint or env.get("ANTHROPIC_BASE_URL")
    if base_url:
        controlled["ANTHROPIC_BASE_URL"] = base_url
    if user_settings:
        for key in ("HOME", "CLAUDE_CONFIG_DIR"):
            if key in env:
                controlled[key] = env[key]
    else:
        controlled["HOME"] = str(scratch)
        controlled["CLAUDE_CONFIG_DIR"] = str(scratch / ".claude")
    # The SDK merges options.env over os.environ: blank what we did not choose to pass.
    blanked = {key: "" for key in os.environ if key not in controlled}
    return {**blanked, **controlled}


#: The loopback names a CLI behind a proxy must still reach directly (the relay).
_LOOPBACK = ("127.0.0.1", "localhost")


def through_relay(env: Mapping[str, str], base_url: str) -> dict[str, str]:
    """`env` for a CLI whose API calls go to the relay at `base_url` (relay.py)."""
    relayed = {**env, "ANTHROPIC_BASE_URL": base_url}
    # The relay retries within the turn's budget; retries of the CLI's own on top would
    # multiply every request and hide the provider's refusals from the limiter. The CLI reads
    # it (`CLAUDE_CODE_MAX_RETRIES`, 0 allowed); a user's value is overridden on purpose.
    relayed["CLAUDE_CODE_MAX_RETRIES"] = "0"
    # The proxy variables pass through (the CLI's web tools and MCP servers may need them),
    # but a proxy cannot reach our loopback relay: the CLI must go to it directly.
    if any(
        env.get(name)
        for name in (
            "HTTPS_PROXY",
            "https_proxy",
            "HTTP_PROXY",
            "http_proxy",
            "ALL_PROXY",
            "all_proxy",
        )
    ):
        for name in ("NO_PROXY", "no_proxy"):
            present = [part.strip() for part in env.get(name, "").split(",") if part.strip()]
            relayed[name] = ",".join([*present, *(h for h in _LOOPBACK if h not in present)])
    return relayed
