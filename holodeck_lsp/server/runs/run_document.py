"""The agent a run of an open document runs: the document itself, or for an included
`test_cases_file` the agent that includes it — loaded from the editor's text as the checker
sees it, refused with a message saying what to do when it cannot run."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.server.documents.index import uri_to_path
from holodeck_lsp.server.documents.parsed import parsed_documents
from holodeck_lsp.server.runs.cassette_setting import RunRefused
from holodeck_lsp.server.runs.state import Runner
from holodeck_lsp.server.trust import load_options

if TYPE_CHECKING:
    from holodeck_lsp.schema.agent import Agent


@dataclass(frozen=True, slots=True)
class RunDocument:
    agent: Agent
    #: The agent file.
    path: Path
    #: The agent file's text as loaded (maybe an unsaved buffer).
    agent_text: str
    #: The text of each case written in the document, by index (what results are kept with).
    case_texts: dict[int, str]


def _read_text(path: Path) -> str | None:
    try:
        return read_file_text(path, "utf-8-sig", yaml=True)  # as the checker reads it
    except (OSError, UnicodeDecodeError):
        return None


async def load_for_run(runner: Runner, uri: str, *, to_run: bool) -> RunDocument:
    """Raises `RunRefused` (document not open, not part of an agent, unsaved include, errors).
    `to_run`: the document is loaded to run it, so its graders are imported to check them
    (in a child process) — if `trust` allows it; loaded for anything else (the regression
    marks' masking), nothing is imported."""
    from holodeck_lsp.checker.loader import load_agent_text
    from holodeck_lsp.server.runs.run_locations import locate_suite

    server = runner.server
    document = server.workspace.text_documents.get(uri)
    path = uri_to_path(uri)
    if document is None or path is None:
        raise RunRefused("open the agent file to run it")
    parsed = await parsed_documents(server).get(uri)
    text = parsed.document.text if parsed else document.source
    agent_uri = runner.agent_of(uri)
    if agent_uri is None:
        raise RunRefused(f"no agent file includes {path.name} (test_cases_file)")
    agent_path = uri_to_path(agent_uri)
    if agent_uri != uri and agent_path is not None:
        # The checker reads an include from disk, so the run does too.
        if await asyncio.to_thread(_read_text, path) != text:
            raise RunRefused(f"save {path.name} to run it: a run reads included cases from disk")
        agent_document = server.workspace.text_documents.get(agent_uri)
        agent_text = (
            agent_document.source
            if agent_document is not None
            else await asyncio.to_thread(_read_text, agent_path)
        )
        path, text = agent_path, agent_text or ""
    options = load_options(server.settings, import_graders=to_run)
    loaded = await asyncio.to_thread(load_agent_text, text, path, options)
    if loaded.agent is None or loaded.errors:
        count = len(loaded.errors)
        raise RunRefused(
            f"{path.name} has {count} error{'s' if count != 1 else ''}; fix them to run it"
        )
    suite = locate_suite(parsed.document.root) if parsed is not None else None
    texts: dict[int, str] = {}
    if parsed is not None and suite is not None:
        for located in suite.cases:
            case_text = suite.case_text(parsed.document.text, located.index)
            if case_text is not None:
                texts[located.index] = case_text
    return RunDocument(loaded.agent, path, text, texts)
