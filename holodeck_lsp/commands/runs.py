"""`holodeck-lsp runs [PATH]`: the stored runs of an agent file (or of every agent file below a
folder, found as `check` finds them: runner/run_history/which_agent.py), oldest first;
`--tag NAME [RUN]` / `--untag NAME` name baselines; `--prune` applies the retention setting
now. See docs/running.md ("Run history").

Newest last, as a terminal wants it: the run just made is the line right above the prompt,
however long the history, and the order is the one `list_runs` and ids sort in. Several
agents' histories under PATH are listed one after the other, each under its folder.

Exit status: 0 done; 2 bad arguments, no such path, an unknown run or tag; 3 the history
cannot be written (tags, pruning).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from holodeck_lsp.argument_types import non_negative
from holodeck_lsp.commands._common import fail
from holodeck_lsp.engine.time_text import shown_time
from holodeck_lsp.exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_CANNOT_RUN,
    EXIT_OK,
    RUNS_EXIT_CODES,
    epilog,
)
from holodeck_lsp.runner.run_history import retention
from holodeck_lsp.runner.run_history.layout import runs_folder
from holodeck_lsp.runner.run_history.listing import Listing, scan
from holodeck_lsp.runner.run_history.resolve import RunNotFound, resolve_in
from holodeck_lsp.runner.run_history.stored import StoredRun
from holodeck_lsp.runner.run_history.tags import TagError, check_name, read_tags, write_tags
from holodeck_lsp.runner.run_history.which_agent import (
    AgentNotChosen,
    History,
    histories,
    nothing_stored,
    one_history,
)


def main(argv: Sequence[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_BAD_INPUT
    if not args.path.exists():
        return fail(EXIT_BAD_INPUT, f"no such file or directory: {args.path}")
    if args.keep is not None and not args.prune:
        return fail(EXIT_BAD_INPUT, "--keep N goes with --prune (or with `holodeck-lsp run`)")
    chosen = [flag for flag, value in (("--tag", args.tag), ("--untag", args.untag)) if value]
    if args.prune:
        chosen.append("--prune")
    if len(chosen) > 1:
        return fail(EXIT_BAD_INPUT, f"{' and '.join(chosen)}: choose one")
    reached = histories(args.path)
    if args.prune:
        return _prune(reached, args.keep)
    if args.tag or args.untag:
        if args.tag and len(args.tag) > 2:
            return fail(EXIT_BAD_INPUT, "--tag takes a NAME and at most one RUN")
        try:
            place = one_history(args.path)
        except AgentNotChosen as error:
            return fail(EXIT_BAD_INPUT, str(error))
        if args.untag:
            return _untag(place, args.untag)
        return _tag(place, args.tag[0], args.tag[1] if len(args.tag) == 2 else "latest")
    stored = [(place, scan(place.folder, place.agent_file)) for place in reached]
    stored = [(place, listing) for place, listing in stored if listing.runs or listing.unreadable]
    if args.json:
        sys.stdout.write(json.dumps(_json(args.path, reached, stored), indent=2) + "\n")
    elif not stored:
        print(nothing_stored(args.path, reached))
    elif len(stored) == 1:
        sys.stdout.write("".join(line + "\n" for line in listing_lines(*stored[0])))
    else:  # several agents' histories: one block each, named by its folder
        blocks = [
            [f"{place.agent_dir}:", *listing_lines(place, listing)] for place, listing in stored
        ]
        sys.stdout.write("\n".join("".join(line + "\n" for line in block) for block in blocks))
    return EXIT_OK


def _json(path: Path, reached: list[History], stored: list[tuple[History, Listing]]) -> Any:
    """One history as it always was; several as `{"histories": [...]}`; none: its empty
    listing with the message a terminal would see."""
    if len(stored) == 1:
        return listing_json(*stored[0])
    if stored:
        return {"histories": [listing_json(place, listing) for place, listing in stored]}
    place = reached[0] if reached else History(runs_folder(path), None, ())
    return {**listing_json(place, Listing()), "message": nothing_stored(path, reached)}


def listing_lines(place: History, listing: Listing) -> list[str]:
    lines: list[str] = []
    if listing.tag_problem is not None:
        lines.append(f"warning: {listing.tag_problem}")
    several_agents = len({run.meta.agent_file for run in listing.runs}) > 1
    rows = [_row(run, several_agents) for run in listing.runs]
    if rows:
        header = ["id", "when", *(["agent"] if several_agents else []), "models", "cases", "turns"]
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
            notes = row[len(header)] if len(row) > len(header) else "notes"
            lines.append("  ".join([*cells, notes]).rstrip())
    for broken in listing.unreadable:
        lines.append(f"{broken.name}  unreadable: {broken.reason}")
    return lines


def _row(run: StoredRun, several_agents: bool) -> list[str]:
    meta = run.meta
    notes = [*(f"tag:{name}" for name in run.tags)]
    if run.unfinished:
        from holodeck_lsp.runner.run_history.unfinished import (
            RUNNING,
            journal_progress,
            resume_command,
        )

        done, total = journal_progress(run.folder)
        if meta.stopped == RUNNING:
            notes.append(f"running {done}/{total}")
        else:
            notes.append(f"unfinished {done}/{total} — resume with `{resume_command(run.id)}`")
    elif meta.interrupted:
        notes.append("partial")
    if meta.cases_not_run:
        notes.append(f"{meta.cases_not_run} not run")
    if meta.mode == "replay":
        notes.append("replay")
    if meta.git_dirty:
        notes.append("uncommitted changes")
    return [
        run.id,
        shown_time(run.started),
        *([meta.agent_file] if several_agents else []),
        ", ".join(meta.models) or "-",
        _rate(meta.cases.passed, meta.cases.total),
        _rate(meta.turns.passed, meta.turns.total),
        ", ".join(notes),
    ]


def _rate(passed: int, total: int) -> str:
    percent = f"{100 * passed / total:.0f}%" if total else "-"
    return f"{passed}/{total} {percent:>4}"


def listing_json(place: History, listing: Listing) -> dict[str, Any]:
    return {
        "folder": str(place.folder),
        "runs": [
            {**run.meta.model_dump(mode="json"), "tags": list(run.tags), "path": str(run.folder)}
            for run in listing.runs
        ],
        "unreadable": [
            {"id": broken.name, "path": str(broken.folder), "reason": broken.reason}
            for broken in listing.unreadable
        ],
        "tags": listing.tags,
        "tag_problem": listing.tag_problem,
    }


def _tag(place: History, name: str, ref: str) -> int:
    try:
        check_name(name)
        tags = read_tags(place.folder)
    except TagError as error:
        return fail(EXIT_BAD_INPUT, str(error))
    try:
        run = resolve_in(ref, scan(place.folder, place.agent_file), place.folder)
    except RunNotFound as error:
        return fail(EXIT_BAD_INPUT, str(error))
    moved = tags.get(name)
    tags[name] = run.id
    try:
        write_tags(place.folder, tags)
    except OSError as error:
        return fail(EXIT_CANNOT_RUN, f"cannot write the tags in {place.folder}: {error}")
    was = f" (moved from {moved})" if moved is not None and moved != run.id else ""
    print(f"tagged {run.id} as {name}{was}")
    return EXIT_OK


def _untag(place: History, name: str) -> int:
    try:
        tags = read_tags(place.folder)
    except TagError as error:
        return fail(EXIT_BAD_INPUT, str(error))
    if name not in tags:
        known = ", ".join(sorted(tags)) or "none"
        return fail(EXIT_BAD_INPUT, f"no tag {name!r} in {place.folder} (tags: {known})")
    run_id = tags.pop(name)
    try:
        write_tags(place.folder, tags)
    except OSError as error:
        return fail(EXIT_CANNOT_RUN, f"cannot write the tags in {place.folder}: {error}")
    print(f"removed tag {name} (from {run_id}; the run is kept)")
    return EXIT_OK


def _prune(reached: list[History], keep_flag: int | None) -> int:
    try:
        keep = retention.keep_setting(keep_flag)
    except retention.KeepSettingError as error:
        return fail(EXIT_BAD_INPUT, str(error))
    removed = 0
    links: dict[str, Path] = {}
    for place in reached:
        pruned = retention.prune_runs(place.folder, keep, place.agent_file)
        removed += len(pruned.removed)
        links.update(pruned.links)
    kept = "every run" if keep == 0 else f"the newest {keep} of each agent file"
    print(f"pruned {removed} run{'s' if removed != 1 else ''} (kept {kept}, and every "
          "tagged run)")  # fmt: skip
    for run_id, target in sorted(links.items()):
        print(f"  {run_id} was a link: the link is removed, {target} is left in place")
    return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="holodeck-lsp runs",
        description="List the stored runs of an agent (oldest first, the latest last), tag "
        "baselines, prune old runs. See docs/running.md.",
        epilog=epilog(RUNS_EXIT_CODES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "path",
        nargs="?",
        type=Path,
        default=Path("."),
        metavar="PATH",
        help="an agent file (its runs) or a folder (the runs of every agent file below it, "
        "as `check` finds them); default: the current folder",
    )
    parser.add_argument("--json", action="store_true", help="print the listing as JSON")
    parser.add_argument(
        "--tag",
        nargs="+",
        metavar="NAME [RUN]",
        help="name RUN (id, id prefix, tag, latest, previous; default latest) NAME, e.g. a "
        "baseline; tagged runs are never pruned",
    )
    parser.add_argument("--untag", metavar="NAME", help="remove the tag NAME (the run stays)")
    parser.add_argument(
        "--prune",
        action="store_true",
        help="delete all but the newest runs of each agent file now (tagged runs stay)",
    )
    parser.add_argument(
        "--keep",
        type=non_negative,
        metavar="N",
        help="with --prune: runs to keep (default $HOLODECK_RUNS_KEEP, else 20; 0 keeps all)",
    )
    return parser
