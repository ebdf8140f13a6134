"""`holodeck-lsp merge`: the shards' stored runs or report files read, joined into one report
(engine/report_merge.py) and stored as one run of the agent, which `runs`, `report` and
`compare` read like any other (docs/running.md, "Splitting a suite across machines")."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from holodeck_lsp.engine.report_merge import merge_reports
from holodeck_lsp.runner.run_history.comparison_sides import Side
from holodeck_lsp.runner.run_history.store import RunToStore, save_run
from holodeck_lsp.runner.run_history.stored import StoredRun
from holodeck_lsp.runner.secrets import Redactor, environment_secrets
from holodeck_lsp.schema.results import TestReport

#: run.json's `mode` of a merged run.
MERGED_MODE = "merged"


def merged_report(sides: Sequence[Side], warn: Callable[[str], None] | None = None) -> TestReport:
    """The sides' reports as one. Raises SideError (a side unreadable) or MergeError."""
    return merge_reports([(side.ref.label, side.report(warn)) for side in sides])


def store_merged(agent: Path, report: TestReport) -> StoredRun:
    """Store the merged report as a run of `agent`. Raises OSError. The parts were masked
    when they were written; the environment's secrets are masked again here."""
    # Stored as made now, so it is `latest`; the report keeps its parts' first start.
    started = datetime.now(UTC)
    redactor = Redactor(environment_secrets(os.environ, [agent]))
    return save_run(
        RunToStore(
            agent_path=agent,
            report=redactor.report(report),
            started=started,
            ended=datetime.now(UTC),
            mode=MERGED_MODE,
            interrupted=report.interrupted,
        ),
        redactor,
    )
