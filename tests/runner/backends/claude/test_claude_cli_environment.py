"""What the Claude Code CLI process may see (runner/backends/claude/cli_environment.py): the
credential it is given, system basics and its own settings — never another secret, neither
from the run's env nor from this process's environment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.runner.agent_code.mcp_servers import StdioServer
from holodeck_lsp.runner.backends.base import BackendInitError
from holodeck_lsp.runner.backends.claude.cli_environment import cli_environment
from holodeck_lsp.schema.llm import LLMProvider


def model(**fields: Any) -> LLMProvider:
    return LLMProvider.model_validate({"provider": "anthropic", "name": "claude-x", **fields})


def environment(
    llm: LLMProvider,
    env: dict[str, str],
    scratch: Path,
    *,
    user_settings: bool = False,
    mcp_servers: tuple[StdioServer, ...] = (),
) -> dict[str, str]:
    return cli_environment(
        llm, env, mcp_servers=mcp_servers, user_settings=user_settings, scratch=scratch
    )


def test_secrets_other_than_the_key_do_not_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOLODECK_TEST_PROCESS_SECRET", "process-secret")
    env = {
        "PATH": "/usr/bin",
        "LC_ALL": "C.UTF-8",
        "ANTHROPIC_API_KEY": "sk-ant-key",
        "OPENAI_API_KEY": "sk-openai",
        "AWS_SECRET_ACCESS_KEY": "aws-secret",
        "CLAUDE_CODE_OAUTH_TOKEN": "oauth-withheld",
        "CLAUDE_CODE_MAX_RETRIES": "0",
        "DISABLE_TELEMETRY": "0",
    }
    seen = environment(model(), env, tmp_path)
    assert seen["ANTHROPIC_API_KEY"] == "sk-ant-key"
    assert (seen["PATH"], seen["LC_ALL"], seen["CLAUDE_CODE_MAX_RETRIES"]) == (
        "/usr/bin",
        "C.UTF-8",
        "0",
    )
    assert seen["DISABLE_TELEMETRY"] == "0"  # the caller's setting beats the quiet default
    assert seen["DISABLE_AUTOUPDATER"] == "1"
    for withheld in ("OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "CLAUDE_CODE_OAUTH_TOKEN"):
        assert seen.get(withheld, "") == ""
    # The SDK merges over os.environ: what this process has is blanked, not merely left out.
    assert seen["HOLODECK_TEST_PROCESS_SECRET"] == ""
    assert "process-secret" not in seen.values()
    assert not {"aws-secret", "sk-openai", "oauth-withheld"} & set(seen.values())


def test_the_key_from_the_model_wins_and_a_missing_key_is_an_init_error(tmp_path: Path) -> None:
    seen = environment(model(api_key="sk-yaml"), {"ANTHROPIC_API_KEY": "sk-env"}, tmp_path)
    assert seen["ANTHROPIC_API_KEY"] == "sk-yaml"
    with pytest.raises(BackendInitError, match=r"set ANTHROPIC_API_KEY or model\.api_key"):
        environment(model(), {"ANTHROPIC_API_KEY": "  "}, tmp_path)


def test_oauth_token_auth(tmp_path: Path) -> None:
    llm = model(auth_provider="oauth_token")
    seen = environment(llm, {"CLAUDE_CODE_OAUTH_TOKEN": "tok", "ANTHROPIC_API_KEY": "k"}, tmp_path)
    assert seen["CLAUDE_CODE_OAUTH_TOKEN"] == "tok"
    assert seen.get("ANTHROPIC_API_KEY", "") == ""  # the key is not this auth's credential
    with pytest.raises(BackendInitError, match="CLAUDE_CODE_OAUTH_TOKEN"):
        environment(llm, {}, tmp_path)


def test_unsupported_auth_providers_are_init_errors(tmp_path: Path) -> None:
    with pytest.raises(BackendInitError, match="auth_provider bedrock is not supported"):
        environment(model(auth_provider="bedrock"), {"ANTHROPIC_API_KEY": "k"}, tmp_path)


def test_endpoint_and_max_tokens_only_when_written(tmp_path: Path) -> None:
    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:1"}
    plain = environment(model(), env, tmp_path)
    assert plain["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:1"
    assert plain.get("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "") == ""  # the schema default is not sent
    written = environment(model(endpoint="http://127.0.0.1:2", max_tokens=4096), env, tmp_path)
    assert written["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:2"
    assert written["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] == "4096"


def test_a_scratch_home_unless_user_settings(tmp_path: Path) -> None:
    env = {"ANTHROPIC_API_KEY": "k", "HOME": "/home/me", "CLAUDE_CONFIG_DIR": "/home/me/.c"}
    scratch = tmp_path / "scratch"
    seen = environment(model(), env, scratch)
    assert seen["HOME"] == str(scratch)
    assert seen["CLAUDE_CONFIG_DIR"] == str(scratch / ".claude")
    user = environment(model(), env, scratch, user_settings=True)
    assert (user["HOME"], user["CLAUDE_CONFIG_DIR"]) == ("/home/me", "/home/me/.c")


def test_mcp_tool_timeout_is_the_longest_server_timeout(tmp_path: Path) -> None:
    def server(name: str, timeout: int) -> StdioServer:
        return StdioServer(
            name=name,
            description="",
            command="/bin/true",
            args=(),
            env={},
            cwd=tmp_path,
            encoding=None,
            request_timeout=timeout,
            load_tools=True,
            load_prompts=False,
        )

    seen = environment(
        model(),
        {"ANTHROPIC_API_KEY": "k"},
        tmp_path,
        mcp_servers=(server("a", 30), server("b", 90)),
    )
    assert seen["MCP_TOOL_TIMEOUT"] == "90000"  # milliseconds
    assert (
        environment(model(), {"ANTHROPIC_API_KEY": "k"}, tmp_path).get("MCP_TOOL_TIMEOUT", "") == ""
    )


def test_tool_search_is_off_unless_the_caller_turns_it_on(tmp_path: Path) -> None:
    """Every tool of the agent is offered: the CLI's MCP tool search (deferring tools past a
    share of the context) is off, unless the run's env asks for it."""
    seen = environment(model(), {"ANTHROPIC_API_KEY": "k"}, tmp_path)
    assert seen["ENABLE_TOOL_SEARCH"] == "false"
    asked = environment(model(), {"ANTHROPIC_API_KEY": "k", "ENABLE_TOOL_SEARCH": "auto"}, tmp_path)
    assert asked["ENABLE_TOOL_SEARCH"] == "auto"
