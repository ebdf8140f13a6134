"""Values `run`'s parser declares that the code behind the flags also reads — kept in a module
that imports nothing, so building the parser (for `--help` and for writing the shell
completion script, commands/shell_completion/) does not import the run's console and
executor."""

from __future__ import annotations

#: `run --progress`: decide by size, or insist on one display (commands/console/totals_bar.py).
PROGRESS_CHOICES = ("auto", "cases", "totals")

#: `--resume` without a value: the latest unfinished run of the agent file (resume_run.py).
LATEST_UNFINISHED = "\0latest-unfinished"
