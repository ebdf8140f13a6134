"""The redactor for what the regression marks and the compare command send: stored reports
were masked when they were written, but with the secrets of *that* run's environment; the
text leaving the server now is masked again with today's — the document's last run's
redactor when there is one, joined with the redactor a run of the document would use
(`run_session.redactor_for`: the agent's secret fields, its `${VAR}` values, the
environment's `*_API_KEY`-style values). A document that cannot be loaded (errors) still
has its `${VAR}` references and the environment's secret-named values masked."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from holodeck_lsp.server.runs.cassette_setting import RunRefused
from holodeck_lsp.server.runs.run_document import load_for_run

if TYPE_CHECKING:
    from holodeck_lsp.runner.secrets import Redactor
    from holodeck_lsp.server.runs.state import Runner

_SECRET_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD")


async def redactor_of(runner: Runner, uri: str) -> Redactor:
    from holodeck_lsp.runner.run_session import RunRequest, redactor_for
    from holodeck_lsp.runner.secrets import Redactor

    last = runner.redactors.get(uri)
    try:
        document = await load_for_run(runner, uri, to_run=False)  # nothing imported
    except RunRefused:
        fallback = Redactor(_env_secrets(runner, uri))
        return fallback | last if last is not None else fallback
    request = RunRequest(document.agent, document.path, agent_text=document.agent_text)
    own = await asyncio.to_thread(redactor_for, request)  # may read an included cases file
    return own | last if last is not None else own


def _env_secrets(runner: Runner, uri: str) -> list[str]:
    from holodeck_lsp.checker.yaml_document import ENV_REFERENCE

    document = runner.server.workspace.text_documents.get(uri)
    text = document.source if document is not None else ""
    env = os.environ
    found = [env[m.group(1)] for m in ENV_REFERENCE.finditer(text) if env.get(m.group(1))]
    found += [v for k, v in env.items() if k.upper().endswith(_SECRET_SUFFIXES) and v]
    return found
