"""A stored run as read back from its folder: its metadata, its tags, and its report and
recording read on demand."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from holodeck_lsp.checker.json_reading import read_json_file
from holodeck_lsp.runner.run_history.layout import (
    JOURNAL_FILE,
    RECORDING_FILE,
    REPORT_FILE,
    RUN_FILE,
)
from holodeck_lsp.runner.run_history.metadata import RunMetadata

if TYPE_CHECKING:
    # Imported where used: listing and resolving runs (`runs`, and the completion scripts'
    # `__run-refs` on every Tab) read only run.json; the report and cassette schemas are a
    # third of a second.
    from holodeck_lsp.runner.cassette import Cassette
    from holodeck_lsp.schema.results import TestReport

#: What to do about a run folder that cannot be read: said after every reason.
FIX = "delete the folder (nothing else depends on it) or restore it"


class RunUnreadable(Exception):
    """A stored run's files cannot be read; the message leads with the folder and the cause."""


@dataclass(frozen=True, slots=True)
class StoredRun:
    """One run in `.holodeck/runs/`; `meta` is its run.json (already validated)."""

    folder: Path
    meta: RunMetadata
    tags: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return self.meta.id

    @property
    def started(self) -> datetime:
        return datetime.fromisoformat(self.meta.started)

    @property
    def report_path(self) -> Path:
        return self.folder / REPORT_FILE

    @property
    def recording_path(self) -> Path:
        return self.folder / RECORDING_FILE

    @property
    def partial(self) -> bool:
        return self.meta.interrupted

    @property
    def journal_path(self) -> Path:
        return self.folder / JOURNAL_FILE

    @property
    def unfinished(self) -> bool:
        """Stopped early, or its process died, with a journal to resume from."""
        return self.meta.interrupted and self.journal_path.is_file()

    @property
    def never_stored(self) -> bool:
        """Only a journal: the process died (or still runs) before storing the run."""
        return not (self.folder / RUN_FILE).is_file()

    def load_report(self) -> TestReport:
        """The run's TestReport (masked when it was stored). Raises RunUnreadable."""
        from holodeck_lsp.schema.results import TestReport

        try:
            raw = read_json_file(self.report_path, errors="replace")
        except FileNotFoundError:
            if self.never_stored:
                from holodeck_lsp.runner.run_history.unfinished import (
                    journal_progress,
                    resume_command,
                )

                done, total = journal_progress(self.folder)
                raise RunUnreadable(
                    f"run {self.id} is unfinished: its process stopped before the run ended "
                    f"({done}/{total} case sessions finished), so it has no report yet; "
                    f"finish it with `{resume_command(self.id)}`"
                ) from None
            raise RunUnreadable(f"{self.folder}: {REPORT_FILE} is missing; {FIX}") from None
        except OSError as error:
            raise RunUnreadable(
                f"{self.folder}: {REPORT_FILE} cannot be read ({error.strerror or error}); {FIX}"
            ) from None
        except json.JSONDecodeError as error:
            raise RunUnreadable(
                f"{self.folder}: {REPORT_FILE} is not JSON (line {error.lineno}: {error.msg}); "
                f"{FIX}"
            ) from None
        try:
            return TestReport.model_validate(raw)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "(top level)"
            raise RunUnreadable(
                f"{self.folder}: {REPORT_FILE} is not a holodeck-lsp report ({where}: "
                f"{first['msg']}); {FIX}"
            ) from None

    def load_recording(self) -> Cassette:
        """The run as a cassette (what `--replay` reads). Raises RunUnreadable."""
        from holodeck_lsp.runner.cassette import CassetteFormatError, load_cassette

        try:
            return load_cassette(self.recording_path)
        except CassetteFormatError as error:
            raise RunUnreadable(f"{self.folder}: {error}; {FIX}") from None
