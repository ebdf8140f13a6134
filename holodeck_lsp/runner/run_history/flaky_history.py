"""Flaky in the stored history: a regressed turn that both passed and failed among the
agent's earlier stored runs is marked flaky — listed, never a regression on its own
(docs/running.md, "Flaky turns and the significance gate"). The repeats of one run say the
same within a run (engine/run_comparison.py); this is the same rule across runs.

Only the regressed turns are looked up, in at most `HISTORY_RUNS` of the newest stored runs
other than the two compared, and only where the turn's input is the one head ran.
"""

from __future__ import annotations

from pathlib import Path

from pydantic_core import from_json

from holodeck_lsp.checker.file_reading import read_file_bytes
from holodeck_lsp.engine.comparison_rows import ReportDataError, input_hash, turns_of_data
from holodeck_lsp.runner.run_history.comparison_sides import stored_runs
from holodeck_lsp.schema.comparison import Comparison, TurnChange

#: How many earlier stored runs are read.
HISTORY_RUNS = 10


def with_history_flakiness(comparison: Comparison, agent: Path) -> Comparison:
    """`comparison` with its regressions that flip in the agent's history marked flaky."""
    wanted = {
        (change.model, change.case, change.turn_index): change
        for change in comparison.changes
        if change.kind == "regression" and not change.flaky and change.head is not None
    }
    if not wanted:
        return comparison
    compared = {comparison.base.run_id, comparison.head.run_id}
    earlier = [run for run in stored_runs(agent) if run.id not in compared][-HISTORY_RUNS:]
    #: What each turn did in the history: "passed", "failed" or both.
    seen: dict[tuple[str | None, str, int], set[str]] = {}
    for run in earlier:
        try:
            data = from_json(read_file_bytes(run.report_path))
            turns = turns_of_data(data, ignore_model=False)
        except (OSError, ValueError, ReportDataError):
            continue  # an unreadable run says nothing either way
        for key, change in wanted.items():
            turn = turns.get(key) or turns.get((None, key[1], key[2]))
            if turn is None or change.head is None:
                continue
            if input_hash(turn.input) != change.head.input_hash:
                continue
            passes, runs = turn.counts()
            outcomes = seen.setdefault(key, set())
            if passes:
                outcomes.add("passed")
            if passes < runs:
                outcomes.add("failed")
    flaky = {key for key, outcomes in seen.items() if len(outcomes) == 2}
    if not flaky:
        return comparison
    changes: list[TurnChange] = [
        change.model_copy(update={"flaky": True})
        if (change.model, change.case, change.turn_index) in flaky and change.kind == "regression"
        else change
        for change in comparison.changes
    ]
    return comparison.model_copy(update={"changes": changes})
