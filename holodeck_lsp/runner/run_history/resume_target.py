"""The agent file `run --resume [RUN]` finishes when no PATH is named: the hint a stopped run
prints (`holodeck-lsp run --resume RUN`) works pasted in the agent's folder or anywhere else
(docs/running.md, "Resume").

An exact run id is looked up in the run index first (run_index.py: every run notes its agent
file there when it starts), which works from any folder. Otherwise — an id prefix, a tag,
`--resume` alone for the latest unfinished run, or an index that was cleared — the runs stored
under the current folder are searched, as `runs` lists them (which_agent.py).
"""

from __future__ import annotations

from pathlib import Path

from holodeck_lsp.runner.run_history.listing import scan
from holodeck_lsp.runner.run_history.resolve import RunNotFound, resolve_in
from holodeck_lsp.runner.run_history.run_index import agents_of
from holodeck_lsp.runner.run_history.which_agent import AgentNotChosen, histories


def agent_for_resume(ref: str | None, here: Path) -> Path:
    """The one agent file whose stored run `ref` names (None: whose run is the latest
    unfinished one) under `here` or in the run index. Raises AgentNotChosen."""
    indexed = agents_of(ref) if ref else []
    if len(indexed) == 1:
        return indexed[0]
    found = _under(ref, here)
    if not found:
        found = indexed if ref else _only_agent(here)
    if len(found) == 1:
        return found[0]
    what = f"run {ref!r}" if ref else "unfinished run"
    if not found:
        return _refuse(
            f"no stored {what} found under the current folder ({here.resolve()}) nor among "
            "the runs started by this user; name its agent file: "
            f"`holodeck-lsp run PATH --resume{' ' + ref if ref else ''}`"
        )
    names = ", ".join(str(path) for path in found[:5])
    return _refuse(
        f"the {what} could be one of several agent files' ({names}); name one: "
        f"`holodeck-lsp run PATH --resume{' ' + ref if ref else ''}`"
    )


def _under(ref: str | None, here: Path) -> list[Path]:
    """Agent files under `here` with a stored run answering to `ref` (None: an unfinished
    run); one entry per agent file."""
    found: list[Path] = []
    try:
        reached = histories(here)
    except AgentNotChosen:
        return []
    for history in reached:
        listing = scan(history.folder)
        if ref is None:
            names = [run.meta.agent_file for run in listing.runs if run.unfinished]
        else:
            try:
                names = [resolve_in(ref, listing, history.folder).meta.agent_file]
            except RunNotFound:
                names = []
        for name in names:
            agent = (history.agent_dir / name).resolve()
            if agent.is_file() and agent not in found:
                found.append(agent)
    return found


def _only_agent(here: Path) -> list[Path]:
    """The agent file under `here` when there is one: its own refusal (nothing unfinished)
    says more than a search that found nothing."""
    try:
        files = [file for history in histories(here) for file in history.agents]
    except AgentNotChosen:
        return []
    return files if len(files) == 1 else []


def _refuse(message: str) -> Path:
    raise AgentNotChosen(message)
