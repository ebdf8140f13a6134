"""`run.json`: what a stored run is, without reading its report — enough to list runs, resolve
them and prune them quickly (a report of 1,000 cases takes tens of milliseconds to parse; the
listing reads 50 small files instead).

Format version 1. A folder whose `run.json` has another version is listed as unreadable
(written by a newer holodeck-lsp) rather than guessed at.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

FORMAT_VERSION: Final = 1
#: Seconds the one `git status` may take (a huge repository must not hold up the run's end).
GIT_TIMEOUT = 3.0


class Counts(BaseModel):
    model_config = ConfigDict(extra="forbid")

    passed: int = Field(ge=0)
    total: int = Field(ge=0)


class RunMetadata(BaseModel):
    # Unknown keys are tolerated (a later minor addition); the version says what is required.
    model_config = ConfigDict(extra="ignore")

    format_version: Literal[1] = FORMAT_VERSION
    id: str
    started: str = Field(description="ISO 8601 with time zone.")
    ended: str = Field(description="ISO 8601 with time zone.")
    agent_file: str = Field(
        description="The agent file, relative to the folder that holds `.holodeck/`."
    )
    agent_name: str = ""
    agent_sha256: str | None = Field(default=None, description="Of the file as run (bytes).")
    models: list[str] = Field(default_factory=list, description="`provider:name`, in order.")
    repeats: int = Field(default=1, ge=1)
    mode: str = Field(default="live", description="live, record, replay or regrade.")
    replay_of: str | None = Field(default=None, description="The cassette a replay answered from.")
    git_commit: str | None = None
    git_dirty: bool | None = None
    interrupted: bool = False
    stopped: str | None = Field(
        default=None,
        description="Why an interrupted run stopped early (runner/execution/early_stop.py).",
    )
    holodeck_lsp_version: str
    cases: Counts
    turns: Counts
    #: Cases the run never finished (Ctrl-C, a budget): neither passed nor failed. Older
    #: run.json files leave it out.
    cases_not_run: int = Field(default=0, ge=0)


@dataclass(frozen=True, slots=True)
class GitState:
    commit: str
    dirty: bool


def git_state(folder: Path) -> GitState | None:
    """The commit checked out where `folder` is, and whether tracked files differ from it;
    None outside a repository, without git, or when git is too slow. One subprocess:
    `git status --porcelain=v2 --branch` prints the commit and the changes together."""
    import subprocess  # here: listing runs (and every completion Tab) never calls git

    try:
        done = subprocess.run(
            ["git", "status", "--porcelain=v2", "--branch", "--untracked-files=no"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    commit: str | None = None
    dirty = False
    for line in done.stdout.splitlines():
        if line.startswith("# branch.oid "):
            commit = line.split(" ", 2)[2].strip()
        elif line and not line.startswith("#"):
            dirty = True
    if commit is None or commit == "(initial)":  # a repository without a commit yet
        return None
    return GitState(commit, dirty)
