"""Whether the Claude Code CLI bundled in the claude-agent-sdk wheel starts on this machine:
the Claude backend's tests drive it against the fake Anthropic server
(tests/fakes/anthropic_server.py), and skip with this reason where it cannot start."""

from __future__ import annotations

import subprocess
from functools import cache


@cache
def bundled_cli_problem() -> str | None:
    """None when the bundled Claude Code CLI starts here, else why not."""
    try:
        from claude_agent_sdk._internal.transport.subprocess_cli import (
            SubprocessCLITransport,
        )
    except ImportError as error:  # the `claude` extra is part of `dev`: a broken install
        return f"claude-agent-sdk is not importable: {error}"
    cli = SubprocessCLITransport._find_bundled_cli(None)  # type: ignore[arg-type]
    if cli is None:
        return "claude-agent-sdk has no bundled Claude Code CLI for this platform"
    try:
        done = subprocess.run([cli, "--version"], capture_output=True, timeout=60, check=False)
    except OSError as error:
        return f"the bundled Claude Code CLI cannot be executed: {error}"
    if done.returncode != 0:
        return f"the bundled Claude Code CLI fails: {done.stderr.decode()[-300:]}"
    return None
