"""`holodeck-lsp __run-refs [--kind run|runfile|tag] [--valued SPEC] [--describe] -- COMMAND
WORD…`: the names of the stored runs a command on this line would accept (`compare BASE`,
`--baseline`, `report RUN`, `runs --tag NAME RUN`; only the tags for `runs --untag`). Hidden,
for the completion scripts; WORDs are the line's words after the subcommand, unquoted, before
the cursor; SPEC the command's options taking a value (line_words.py).

Whose history: the one the command itself would read, through the same functions —
`compare`, `report` and `runs` ask run_history/which_agent.py, as the commands do (`--agent`
or PATH, a file or a folder of agent files; default: this folder); `run` takes the agent
files on the line (`find_agent_files`, as `run` does), else those in this folder.
Runs are read with `scan`, as `resolve` reads them: an unreadable run folder is not offered,
a tag naming a run no longer stored neither.

Order — tags, then `latest` / `previous`, then ids newest first — is what a user reaches for:
a tag is a name they chose (a baseline), `latest` / `previous` are the defaults, and of the
ids the recent ones are the ones compared; an old id is rarely typed. The scripts keep this
order (bash `nosort`, zsh an unsorted group, fish `-k`).

Each value is followed by a NUL byte; with `--describe`, by a TAB and its description first
("→ id, when, cases passed"). A value holding a control character (a hand-edited tags.json)
is left out: it could not be typed, and a TAB or newline would break the shells' reading.
On any error — no agent file, no history, a corrupt one, a bug — nothing is printed: a Tab
must never print into the command line. What is printed (tags, ids, start times, pass
counts) is what `holodeck-lsp runs` prints: no run's inputs, answers or models.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from holodeck_lsp.commands.shell_completion.command_table import TAG
from holodeck_lsp.commands.shell_completion.line_words import Line, read_request
from holodeck_lsp.engine.time_text import shown_time
from holodeck_lsp.exit_codes import EXIT_OK

if TYPE_CHECKING:
    from holodeck_lsp.runner.run_history.listing import Listing
    from holodeck_lsp.runner.run_history.stored import StoredRun

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class Ref:
    value: str
    description: str


def write_refs(refs: Iterable[Ref], describe: bool) -> None:
    """Each value and a NUL byte (`describe`: the value, a TAB and its description)."""
    out = b"".join(
        (f"{ref.value}\t{ref.description}" if describe else ref.value).encode(
            "utf-8", "surrogateescape"
        )
        + b"\0"
        for ref in refs
    )
    sys.stdout.buffer.write(out)
    sys.stdout.buffer.flush()


def main(argv: Sequence[str]) -> int:
    request = read_request(argv)
    if request.line is None:
        return EXIT_OK
    try:
        refs = run_refs(request.line, tags_only=request.kind == TAG)
    except Exception:  # any error: completion prints nothing rather than a traceback
        return EXIT_OK
    write_refs(refs, request.describe)
    return EXIT_OK


def run_refs(line: Line, *, tags_only: bool = False) -> list[Ref]:
    """Tags, then `latest` / `previous`, then ids newest first; each value once."""
    listings = [_listing(folder, agent_file) for folder, agent_file in histories(line)]
    refs: list[Ref] = []
    for listing in listings:
        by_id = {run.id: run for run in listing.runs}
        for name, run_id in sorted(listing.tags.items()):
            if run_id in by_id:
                refs.append(Ref(name, f"→ {run_id}, {_about(by_id[run_id])}"))
    if not tags_only:
        runs = next((listing.runs for listing in listings if listing.runs), [])
        for name, back in (("latest", 1), ("previous", 2)):
            if len(runs) >= back:
                run = runs[-back]
                refs.append(Ref(name, f"→ {run.id}, {_about(run)}"))
        every = sorted(
            (run for listing in listings for run in listing.runs),
            key=lambda run: (run.started.timestamp(), run.id),
            reverse=True,
        )
        for run in every:
            tags = f" (tag {', '.join(run.tags)})" if run.tags else ""
            refs.append(Ref(run.id, _about(run) + tags))
    seen: set[str] = set()
    kept: list[Ref] = []
    for ref in refs:
        if ref.value and not _CONTROL.search(ref.value) and ref.value not in seen:
            seen.add(ref.value)
            kept.append(Ref(ref.value, _CONTROL.sub(" ", ref.description)))
    return kept


def histories(line: Line) -> list[tuple[Path, str | None]]:
    """(runs folder, agent file name or None for every agent there) the command would read."""
    from holodeck_lsp.runner.run_history.layout import runs_folder

    agent = line.last("--agent")
    if line.command in ("compare", "report", "runs"):
        from holodeck_lsp.runner.run_history import which_agent

        given = agent if line.command != "runs" else next(iter(line.positionals), None)
        path = Path(given or ".")
        try:
            if line.command == "compare":
                chosen = which_agent.one_agent(path)
                return [(runs_folder(chosen), chosen.name)]
            if line.command == "report":
                place = which_agent.one_history(path)
                return [(place.folder, place.agent_file)]
            return [(place.folder, place.agent_file) for place in which_agent.histories(path)]
        except which_agent.AgentNotChosen:  # the command would say why; a Tab offers nothing
            return []
    if line.command == "run":
        from holodeck_lsp.checker.discovery import find_agent_files, is_agent_file

        existing = [path for path in line.positionals if path and Path(path).exists()]
        if existing:
            files = find_agent_files(existing)
        elif line.positionals:
            return []
        else:  # no path typed yet: the agent files here, as `compare` would look for them
            files = sorted(Path(p.name) for p in Path.cwd().iterdir() if is_agent_file(p.name))
        return [(runs_folder(file), file.name) for file in files]
    return []


def _listing(folder: Path, agent_file: str | None) -> Listing:
    from holodeck_lsp.runner.run_history.listing import scan

    return scan(folder, agent_file)


def _about(run: StoredRun) -> str:
    cases = run.meta.cases
    rate = f" {100 * cases.passed / cases.total:.0f}%" if cases.total else ""
    when = shown_time(run.started)
    partial = ", partial" if run.partial else ""
    return f"{when}, cases {cases.passed}/{cases.total}{rate}{partial}"
