"""Choosing a backend for an agent's `model.provider`, importing its SDK only then.

openai, azure_openai and ollama run on Semantic Kernel (extra `sk`); anthropic runs on the
Claude Agent SDK (extra `claude`). Each backend module imports its SDK lazily, inside the
functions that need it, so `holodeck-lsp --check` and the language server never pay for it.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from pathlib import Path

from holodeck_lsp.runner.backend import AgentBackend, BackendInitError
from holodeck_lsp.runner.function_tools import load_function_tools
from holodeck_lsp.runner.preflight import check_endpoint
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.llm import Provider

#: provider -> (module, class, pip extra)
_BACKENDS: dict[Provider, tuple[str, str, str]] = {
    Provider.OPENAI: ("semantic_kernel_backend", "SemanticKernelBackend", "sk"),
    Provider.AZURE_OPENAI: ("semantic_kernel_backend", "SemanticKernelBackend", "sk"),
    Provider.OLLAMA: ("semantic_kernel_backend", "SemanticKernelBackend", "sk"),
    Provider.ANTHROPIC: ("claude_backend", "ClaudeBackend", "claude"),
}


def create_backend(
    agent: Agent, agent_dir: Path, env: Mapping[str, str] | None = None
) -> AgentBackend:
    """The backend for `agent.model.provider`, with the agent's function tools loaded.

    Raises BackendInitError with what to do when the backend cannot be used (missing extra,
    missing API key, …; `preflight.BackendUnreachable` when its endpoint does not answer)."""
    module_name, class_name, extra = _BACKENDS[agent.model.provider]
    environment = dict(os.environ if env is None else env)
    # Before the SDK import: a server that is down is reported at once, not as N failed turns.
    check_endpoint(agent, environment)
    try:
        module = importlib.import_module(f"holodeck_lsp.runner.backends.{module_name}")
    except ImportError as error:
        raise BackendInitError(
            f"provider {agent.model.provider.value} needs the `{extra}` extra: "
            f"pip install 'holodeck-lsp[{extra}]' ({error})"
        ) from error
    backend_class = getattr(module, class_name)
    tools = load_function_tools(agent, agent_dir)
    backend: AgentBackend = backend_class(agent, tools, environment, agent_dir=agent_dir)
    return backend
