"""A τ²-bench checkout, read: which domains it has whole, and why the others cannot be
imported (a file absent, or a Git LFS pointer in its place).

Some checkouts lack files: airline's `db.json` and telecom's full `tasks.json` are absent from
some (docs/importing-tau2.md, "What a checkout may lack"). A domain missing a file it needs is
left out with a warning naming the file; telecom without `tasks.json` imports its
`tasks_small.json` instead, and says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from holodeck_lsp.checker.file_reading import read_file_bytes
from holodeck_lsp.importers.tau2.errors import ImportInputError

#: The domains imported, in this order.
DOMAINS = ("retail", "airline", "telecom", "mock")
#: Files each domain needs (relative to data/tau2/domains/<domain>/), besides its tasks.
NEEDED = {
    "retail": ("db.json", "policy.md"),
    "airline": ("db.json", "policy.md"),
    "telecom": ("db.toml", "user_db.toml", "main_policy.md", "tech_support_manual.md"),
    "mock": ("db.json", "user_db.json", "policy.md"),
}
#: The tasks files tried, in order: the first present is imported.
TASK_FILES = {"telecom": ("tasks.json", "tasks_small.json")}
GUIDELINES = "user_simulator/simulation_guidelines.md"
#: The size limit of one data file (retail's db.json is 2.8 MB).
LIMIT = 200 * 1024 * 1024
_LFS = b"version https://git-lfs"


@dataclass(frozen=True, slots=True)
class DomainFiles:
    name: str
    #: The tasks as τ² wrote them (JSON objects), in the file's order.
    tasks: list[dict[str, Any]]
    #: Where the tasks came from (data/tau2/domains/<domain>/<file>).
    tasks_file: str
    #: File name -> bytes of the domain's other files (databases, policies).
    files: dict[str, bytes]


@dataclass(frozen=True, slots=True)
class Checkout:
    root: Path
    domains: dict[str, DomainFiles]
    #: Domain -> why it cannot be imported.
    missing: dict[str, str] = field(default_factory=dict)
    #: What the user should know though the domain imports.
    notes: tuple[str, ...] = ()
    guidelines: str = ""


def _data_root(path: Path) -> Path:
    for candidate in (path / "data" / "tau2", path / "tau2", path):
        if (candidate / "domains").is_dir():
            return candidate
    raise ImportInputError(
        f"{path} is not a τ²-bench checkout: no data/tau2/domains/ in it; pass the folder of "
        "`git clone https://github.com/sierra-research/tau2-bench`"
    )


def _read(path: Path) -> bytes | None:
    """The file's bytes; None when it is absent or a Git LFS pointer."""
    if not path.is_file():
        return None
    try:
        data = read_file_bytes(path, LIMIT)
    except OSError as error:
        raise ImportInputError(f"cannot read {path}: {error}") from None
    return None if data.startswith(_LFS) else data


def _domain(folder: Path, name: str) -> tuple[DomainFiles | None, str | None, str | None]:
    """(files, why missing, note) of one domain's folder."""
    if not folder.is_dir():
        return None, f"no folder data/tau2/domains/{name}/", None
    files: dict[str, bytes] = {}
    absent = []
    for file_name in NEEDED[name]:
        data = _read(folder / file_name)
        if data is None:
            absent.append(file_name)
        else:
            files[file_name] = data
    tasks_data, tasks_file, note = None, "", None
    tried = TASK_FILES.get(name, ("tasks.json",))
    for file_name in tried:
        tasks_data = _read(folder / file_name)
        if tasks_data is not None:
            tasks_file = file_name
            if file_name != tried[0]:
                note = (
                    f"{name}: {tried[0]} is absent (or a Git LFS pointer) in this checkout; "
                    f"imported its {file_name} instead"
                )
            break
    if tasks_data is None:
        absent.append(" or ".join(tried))
    if absent:
        why = (
            f"data/tau2/domains/{name}/{', '.join(absent)} absent from the checkout (or a Git "
            "LFS pointer: `git lfs pull` fetches it)"
        )
        return None, why, None
    assert tasks_data is not None
    try:
        tasks = json.loads(tasks_data)
    except ValueError as error:
        raise ImportInputError(
            f"data/tau2/domains/{name}/{tasks_file} is not JSON ({error}): a damaged checkout"
        ) from None
    if isinstance(tasks, dict) and "tasks" in tasks:  # τ²'s load_tasks accepts this form too
        tasks = tasks["tasks"]
    if not isinstance(tasks, list):
        raise ImportInputError(f"data/tau2/domains/{name}/{tasks_file} holds no list of tasks")
    return DomainFiles(name, tasks, tasks_file, files), None, note


def read_checkout(path: Path, wanted: tuple[str, ...]) -> Checkout:
    """The `wanted` domains of the checkout at `path` that it has whole. Refused when none of
    them can be imported: the message names what is missing."""
    unknown = [name for name in wanted if name not in DOMAINS]
    if unknown:
        raise ImportInputError(
            f"unknown domain {', '.join(unknown)}: τ²'s domains imported are {', '.join(DOMAINS)}"
        )
    root = _data_root(path)
    domains: dict[str, DomainFiles] = {}
    missing: dict[str, str] = {}
    notes: list[str] = []
    for name in wanted:
        found, why, note = _domain(root / "domains" / name, name)
        if found is None:
            missing[name] = why or "absent"
        else:
            domains[name] = found
        if note:
            notes.append(note)
    if not domains:
        lines = "; ".join(f"{name}: {why}" for name, why in missing.items())
        others = [
            name
            for name in DOMAINS
            if name not in wanted and _domain(root / "domains" / name, name)[0] is not None
        ]
        usable = (
            f"; {', '.join(others)} import from this checkout: --domains {','.join(others)}"
            if others
            else ""
        )
        raise ImportInputError(
            f"no domain of {', '.join(wanted)} can be imported ({lines}){usable}"
        )
    guidelines = _read(root / GUIDELINES)
    if guidelines is None:
        raise ImportInputError(
            f"data/tau2/{GUIDELINES} is absent from the checkout: the simulated user's "
            "instructions start with it, as τ²'s user simulator's do"
        )
    return Checkout(path, domains, missing, tuple(notes), guidelines.decode("utf-8"))
