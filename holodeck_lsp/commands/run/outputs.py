"""What a run writes when it ends: its reports (one per `--report-*` flag given, from the
report-format table) and its cassette, each masked once more on the way out."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from holodeck_lsp.commands._common import write_output
from holodeck_lsp.commands.console.text_stream import TextStream
from holodeck_lsp.commands.report_formats import REPORT_FORMATS
from holodeck_lsp.exit_codes import EXIT_CANNOT_RUN, EXIT_OK
from holodeck_lsp.runner.run_session import RunOutcome
from holodeck_lsp.runner.secrets import Redactor

if TYPE_CHECKING:
    # Type-level only: a run builds a comparison only for --baseline (commands/run/baseline.py).
    from holodeck_lsp.schema.comparison import Comparison


@dataclass(frozen=True, slots=True)
class _Output:
    path: Path
    render: Callable[[], str]
    what: str = "report"


def write_outputs(
    args: argparse.Namespace,
    outcome: RunOutcome,
    redactor: Redactor,
    stream: TextStream,
    comparison: Comparison | None = None,
) -> int:
    """EXIT_OK, or EXIT_CANNOT_RUN when some file could not be written (the others are)."""
    masked, recording = outcome.report, outcome.recording
    outputs = [
        _Output(path, functools.partial(form.render, masked, comparison))
        for form in REPORT_FORMATS
        if (path := getattr(args, form.run_dest)) is not None
    ]
    if args.record and recording is not None:
        outputs.append(_Output(args.record, recording.render, "cassette"))
    status = EXIT_OK
    for output in outputs:
        # The renderers already saw masked data; masking the text too catches a secret
        # split or re-encoded by a renderer in a way the data pass could not see.
        text = redactor.text(output.render())
        written = write_output(output.path, text, status_if_not=EXIT_CANNOT_RUN, make_folder=True)
        if written == EXIT_OK:
            stream.write(f"{output.what} written to {output.path}\n")
        else:
            status = written
    return status
