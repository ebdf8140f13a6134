"""The parts of the Claude Agent SDK backend (`claude_backend.py` holds the backend). Each
module imports claude_agent_sdk only inside its functions.

* `session` — one conversation: one CLI process, one `query()` per turn

* `tool_schema` — a function tool's parameters as the JSON schema the model is shown
* `tool_server` — function tools as handlers of the in-process MCP server, each call recorded
* `cli_environment` — the controlled environment the Claude Code CLI process gets
* `options` — the agent's `claude:` block and tools as `ClaudeAgentOptions`
* `messages` — a turn's files in, its usage and tool-result text out
* `provider_errors` — a failed turn as errored (the provider's) or failed (the agent's)
* `relay` — the loopback relay the CLI's API calls go through: the endpoint's limiter, the
  turn's retry budget (`relay_http`: its HTTP/1.1 side; `relay_usage`: tokens for `tpm`)
"""
