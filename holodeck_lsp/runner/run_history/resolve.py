"""A run named on the command line: `latest`, `previous`, a full id, a tag, or an id prefix
unique among the stored runs — in that order (an exact id always wins; a tag cannot be
`latest`/`previous` or look like an id, see tags.py)."""

from __future__ import annotations

from pathlib import Path

from holodeck_lsp.runner.run_history.listing import Listing, scan
from holodeck_lsp.runner.run_history.stored import StoredRun

#: Runs named in an "ambiguous prefix" message before "and N more".
_SHOWN = 5


class RunNotFound(Exception):
    """No stored run answers to the name; the message says why and how to find one."""


def resolve(ref: str, folder: Path, agent_file: str | None = None) -> StoredRun:
    """The run `ref` names in `folder` (a `.holodeck/runs/`). Raises RunNotFound."""
    return resolve_in(ref, scan(folder, agent_file), folder)


def resolve_in(ref: str, listing: Listing, folder: Path) -> StoredRun:
    runs = listing.runs
    by_id = {run.id: run for run in runs}
    if ref in by_id:
        return by_id[ref]
    for broken in listing.unreadable:
        if broken.name == ref:
            raise RunNotFound(f"run {ref} cannot be read: {broken.reason}")
    if ref in ("latest", "previous"):
        wanted = 1 if ref == "latest" else 2
        if len(runs) < wanted:
            have = "no stored run" if not runs else "only one stored run"
            raise RunNotFound(
                f"there is {have} in {folder}, so no {ref!r} run; run the suite with "
                "`holodeck-lsp run` (without --no-save) first"
            )
        return runs[-wanted]
    if ref in listing.tags:
        target = listing.tags[ref]
        if target in by_id:
            return by_id[target]
        raise RunNotFound(
            f"tag {ref!r} names run {target}, which is no longer stored (deleted by hand?); "
            f"tag another run: holodeck-lsp runs --tag {ref} RUN"
        )
    matches = [run for run in runs if run.id.startswith(ref)] if ref else []
    if len(matches) == 1:
        return matches[0]
    if matches:
        shown = ", ".join(run.id for run in matches[:_SHOWN])
        more = f" and {len(matches) - _SHOWN} more" if len(matches) > _SHOWN else ""
        raise RunNotFound(
            f"run id prefix {ref!r} is ambiguous: it matches {len(matches)} runs ({shown}{more}); "
            "give more of the id"
        )
    tags = ", ".join(sorted(listing.tags)) or "none"
    if listing.tag_problem is not None:
        tags = f"unknown: {listing.tag_problem}"
    where = f"{len(runs)} stored run{'s' if len(runs) != 1 else ''} in {folder}"
    raise RunNotFound(
        f"no stored run {ref!r}: not an id, id prefix or tag of the {where} (tags: {tags}); "
        "`holodeck-lsp runs` lists them"
    )
