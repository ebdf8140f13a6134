"""Creating the backend for an agent's `model.provider`, importing its SDK only then.

Which backend runs which provider is the providers table (backends/providers.py). Each backend
module imports its SDK lazily, inside the functions that need it, so `holodeck-lsp check` and
the language server never pay for it.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from pathlib import Path

from holodeck_lsp.runner.agent_code.function_tools import load_function_tools
from holodeck_lsp.runner.backends.base import AgentBackend, BackendInitError
from holodeck_lsp.runner.backends.preflight import check_endpoint
from holodeck_lsp.runner.backends.providers import PROVIDERS, missing_extra_message
from holodeck_lsp.schema.agent import Agent


def create_backend(
    agent: Agent, agent_dir: Path, env: Mapping[str, str] | None = None
) -> AgentBackend:
    """The backend for `agent.model.provider`, with the agent's function tools loaded.

    Raises BackendInitError with what to do when the backend cannot be used (missing extra,
    missing API key, …; `preflight.BackendUnreachable` when its endpoint does not answer)."""
    row = PROVIDERS[agent.model.provider]
    environment = dict(os.environ if env is None else env)
    # Before the SDK import: a server that is down is reported at once, not as N failed turns.
    check_endpoint(agent, environment)
    try:
        module = importlib.import_module(f"holodeck_lsp.runner.backends.{row.backend_module}")
    except ImportError as error:
        raise BackendInitError(missing_extra_message(row, str(error))) from error
    backend_class = getattr(module, row.backend_class)
    tools = load_function_tools(agent, agent_dir)
    backend: AgentBackend = backend_class(agent, tools, environment, agent_dir=agent_dir)
    return backend
