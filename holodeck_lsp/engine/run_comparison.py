"""Comparing two runs turn by turn: two TestReports in, a `Comparison` out (schema/comparison.py).
Pure: no files, no clock; the command (commands/compare.py) reads the reports and renders.

A turn is keyed by (model, case, turn index). A case is its name, or `#position` when it has
none (unnamed cases match by position). A single-turn case is its turn 0. With `--repeat N` a
key holds N results: a side is then a pass *rate*, and any drop in it is a regression — a turn
that went from 5/5 to 3/5 got worse even though it still passes sometimes.

The input's hash tells an edited turn from the same turn run again: an edited turn is listed
(`edited`) and never compared, because "it passed before" says nothing about a new question.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath
from typing import Any

from holodeck_lsp.engine.comparison_decoding import (
    decode_report,
    facts_of_outline,
    turns_of_outline,
)
from holodeck_lsp.engine.comparison_rows import (
    ReportDataError,
    RunFacts,
    Turn,
    TurnKey,
    facts_of_data,
    facts_of_report,
    input_hash,
    turns_of_data,
    turns_of_report,
)
from holodeck_lsp.engine.comparison_statistics import paired_statistics, side_figures
from holodeck_lsp.schema.comparison import (
    ChangeKind,
    Comparison,
    MetricDelta,
    RunRef,
    TurnChange,
)
from holodeck_lsp.schema.results import TestReport

__all__ = [
    "ReportDataError",
    "compare_report_bytes",
    "compare_report_data",
    "compare_reports",
    "input_hash",
]


def compare_reports(
    base: TestReport,
    head: TestReport,
    *,
    base_ref: RunRef,
    head_ref: RunRef,
    score_threshold: float = 0.05,
) -> Comparison:
    base_facts, head_facts = facts_of_report(base), facts_of_report(head)
    ignore = _ignore_model(base_facts, head_facts)
    return _compare(
        (base_facts, turns_of_report(base, ignore_model=ignore), base_ref),
        (head_facts, turns_of_report(head, ignore_model=ignore), head_ref),
        ignore,
        score_threshold,
    )


def compare_report_data(
    base: Mapping[str, Any],
    head: Mapping[str, Any],
    *,
    base_ref: RunRef,
    head_ref: RunRef,
    score_threshold: float = 0.05,
) -> Comparison:
    """`compare_reports` over two reports' parsed JSON, without validating all of it first
    (engine/comparison_rows.py). Raises ReportDataError (or pydantic's ValidationError, for a
    failing turn) when the data is not a report's: read the files as TestReports then."""
    base_facts, head_facts = facts_of_data(base), facts_of_data(head)
    ignore = _ignore_model(base_facts, head_facts)
    return _compare(
        (base_facts, turns_of_data(base, ignore_model=ignore), base_ref),
        (head_facts, turns_of_data(head, ignore_model=ignore), head_ref),
        ignore,
        score_threshold,
    )


def compare_report_bytes(
    base: bytes,
    head: bytes,
    *,
    base_ref: RunRef,
    head_ref: RunRef,
    score_threshold: float = 0.05,
) -> Comparison:
    """`compare_reports` over two report files' bytes, decoded to just what comparing reads
    (engine/comparison_decoding.py). Raises ReportDataError (or pydantic's ValidationError,
    for a failing turn) when they are not a report's: read the files as TestReports then."""
    base_outline, head_outline = decode_report(base), decode_report(head)
    base_facts, head_facts = facts_of_outline(base_outline), facts_of_outline(head_outline)
    ignore = _ignore_model(base_facts, head_facts)
    return _compare(
        (base_facts, turns_of_outline(base_outline, ignore_model=ignore), base_ref),
        (head_facts, turns_of_outline(head_outline, ignore_model=ignore), head_ref),
        ignore,
        score_threshold,
    )


def _ignore_model(base: RunFacts, head: RunFacts) -> bool:
    """One model on each side, different ones: the question is "is B better than A", so turns
    match across the models. So too when a side does not say which model answered (a report
    from before results named their model) and the other ran at most one. Otherwise each
    model is compared with itself."""
    return len(base.models) <= 1 and len(head.models) <= 1 and base.models != head.models


_Side = tuple[RunFacts, dict[TurnKey, Turn], RunRef]


def _compare(base: _Side, head: _Side, ignore_model: bool, threshold: float) -> Comparison:
    base_facts, base_turns, base_ref = base
    head_facts, head_turns, head_ref = head
    changes: list[TurnChange] = []
    unchanged_passing = unchanged_failing = 0
    for key in _keys_in_order(head_turns, base_turns):
        change = _change(key, base_turns.get(key), head_turns.get(key), threshold)
        if isinstance(change, TurnChange):
            changes.append(change)
        elif change:
            unchanged_passing += 1
        else:
            unchanged_failing += 1
    base_ref, head_ref = _filled(base_ref, base_facts), _filled(head_ref, head_facts)
    base_models, head_models = base_facts.models, head_facts.models
    notes = _agent_notes(base_ref, head_ref, base_turns, head_turns, changes)
    if ignore_model and base_models and head_models:
        notes.append(
            f"different models: base ran {base_models[0]}, head ran {head_models[0]}; "
            "turns are matched ignoring the model (is head's model better than base's?)"
        )
    elif ignore_model:
        unnamed = "base" if not base_models else "head"
        notes.append(
            f"{unnamed}'s report does not say which model answered (an older report); turns "
            "are matched ignoring the model"
        )
    elif set(base_models) != set(head_models):
        only_base = [m for m in base_models if m not in head_models]
        only_head = [m for m in head_models if m not in base_models]
        parts = []
        if only_base:
            parts.append(f"only in base: {', '.join(only_base)}")
        if only_head:
            parts.append(f"only in head: {', '.join(only_head)}")
        notes.append(
            "models differ (" + "; ".join(parts) + "); turns are matched per model, so a model "
            "run on one side only shows as added or removed"
        )
    notes += _interrupted_notes(base_ref, head_ref, changes)
    names = (
        (base_models[0], head_models[0])
        if ignore_model and base_models and head_models
        else ("base", "head")
    )
    return Comparison(
        base=base_ref,
        head=head_ref,
        changes=changes,
        unchanged_passing=unchanged_passing,
        unchanged_failing=unchanged_failing,
        score_threshold=threshold,
        notes=notes,
        statistics=paired_statistics(base_turns, head_turns, names=names),
        base_figures=side_figures(base_turns.values()),
        head_figures=side_figures(head_turns.values()),
    )


def _keys_in_order(head: dict[TurnKey, Turn], base: dict[TurnKey, Turn]) -> list[TurnKey]:
    """Head's turns in its order, each base-only turn after the last turn of its case seen so
    far (so a removed turn shows next to its case, not at the very end)."""
    order = list(head)
    for key in base:
        if key not in head:
            order.append(key)
    rank: dict[tuple[str | None, str], int] = {}
    for index, (model, case, _) in enumerate(order):
        rank.setdefault((model, case), index)
    return sorted(order, key=lambda k: (rank[(k[0], k[1])], k[2]))


def _change(
    key: TurnKey, before: Turn | None, after: Turn | None, threshold: float
) -> TurnChange | bool:
    """The change of one turn, or True / False for an unchanged passing / failing turn."""
    model, case, index = key
    either = after if after is not None else before
    text = either.input if either is not None else ""

    def made(kind: ChangeKind, deltas: Iterable[MetricDelta] = ()) -> TurnChange:
        # Sides (and their failure reasons) are built for changes only: most turns have none.
        return TurnChange(
            kind=kind,
            case=case,
            turn_index=index,
            model=model,
            input=text,
            base=before.side() if before is not None else None,
            head=after.side() if after is not None else None,
            metric_deltas=list(deltas),
        )

    if after is None:
        return made("removed")
    if before is None:
        return made("added")
    if after.input != before.input:
        return made("edited")
    base_passes, base_runs = before.counts()
    head_passes, head_runs = after.counts()
    if head_runs == 0:
        return made("not_run")
    if base_runs == 0:
        # Never sent in the base (an interrupted base): there is nothing to compare with.
        return made("added")
    deltas = _deltas(before, after, threshold)
    # Pass rates compared without division: head/head_runs against base/base_runs.
    if head_passes * base_runs < base_passes * head_runs:
        # A turn that passed and failed in one side's repeats is flaky: listed, never a
        # regression on its own (docs/running.md, "Flaky turns and the significance gate").
        flaky = 0 < head_passes < head_runs or 0 < base_passes < base_runs
        return made("regression", deltas).model_copy(update={"flaky": flaky})
    if head_passes * base_runs > base_passes * head_runs:
        return made("fix", deltas)
    if base_passes == 0 and not before.same_first_reason(after):
        return made("new_reason", deltas)
    if deltas:
        return made("score", deltas)
    return head_passes == head_runs


def _deltas(before: Turn, after: Turn, threshold: float) -> list[MetricDelta]:
    base_scores, head_scores = before.mean_scores(), after.mean_scores()
    if base_scores == head_scores:
        return []
    found = []
    for (name, kind), head_score in head_scores.items():
        base_score = base_scores.get((name, kind))
        if base_score is None:
            continue
        # The epsilon keeps a delta of exactly the threshold (0.55 - 0.5 in floats) out.
        if abs(head_score - base_score) > threshold + 1e-9:
            found.append(
                MetricDelta(
                    metric_name=name, kind=kind, base_score=base_score, head_score=head_score
                )
            )
    return found


def _filled(ref: RunRef, facts: RunFacts) -> RunRef:
    """The ref with what the report itself knows, where the caller left it empty."""
    update: dict[str, object] = {}
    if not ref.models and facts.models:
        update["models"] = facts.models
    if facts.interrupted and not ref.interrupted:
        update["interrupted"] = True
    if not ref.agent_path:
        update["agent_path"] = facts.agent_path
    if ref.run_id is None and facts.run_id is not None:
        update["run_id"] = facts.run_id
    if ref.started is None and facts.timestamp:
        update["started"] = facts.timestamp
    return ref.model_copy(update=update) if update else ref


def _agent_notes(
    base_ref: RunRef,
    head_ref: RunRef,
    base_turns: dict[TurnKey, Turn],
    head_turns: dict[TurnKey, Turn],
    changes: list[TurnChange],
) -> list[str]:
    """Stated first when the runs come from different agent files (another path, or the same
    path edited): how the suites differ, in cases and turns, before any verdict."""
    other_path = not same_agent_path(base_ref.agent_path, head_ref.agent_path)
    other_text = (
        base_ref.agent_sha256 is not None
        and head_ref.agent_sha256 is not None
        and base_ref.agent_sha256 != head_ref.agent_sha256
    )
    if not (other_path or other_text):
        return []
    if other_path:
        what = f"different agent files: base {base_ref.agent_path}, head {head_ref.agent_path}"
    else:
        what = f"the agent file {head_ref.agent_path} changed between the runs"
    base_cases = {key[:2] for key in base_turns}
    head_cases = {key[:2] for key in head_turns}
    only_head = sorted({case for _, case in head_cases - base_cases})
    only_base = sorted({case for _, case in base_cases - head_cases})
    turns_added = sum(
        1
        for c in changes
        if c.kind == "added" and c.base is None and (c.model, c.case) in base_cases
    )
    turns_removed = sum(
        1 for c in changes if c.kind == "removed" and (c.model, c.case) in head_cases
    )
    edited = sum(1 for c in changes if c.kind == "edited")
    parts = []
    if only_head:
        parts.append(f"{_count(len(only_head), 'case')} only in head ({_names(only_head)})")
    if only_base:
        parts.append(f"{_count(len(only_base), 'case')} only in base ({_names(only_base)})")
    if turns_added:
        parts.append(f"{_count(turns_added, 'turn')} added to cases of both")
    if turns_removed:
        parts.append(f"{_count(turns_removed, 'turn')} removed from cases of both")
    if edited:
        parts.append(f"{_count(edited, 'turn')} with an edited input")
    return [what + ": " + ("; ".join(parts) if parts else "the same cases and turns")]


def same_agent_path(one: str, other: str) -> bool:
    """Reports keep the agent path as the run was given it, relative to where it ran: the
    same file run from two folders reads `agent.yaml` and `sample/x/agent.yaml`. So one path
    that is the other's tail (whole parts) is the same file; the agent hash, when both sides
    have it, tells edits apart."""
    if one == other:
        return True
    a, b = (
        PurePosixPath(one.replace("\\", "/")).parts,
        PurePosixPath(other.replace("\\", "/")).parts,
    )
    a = tuple(part for part in a if part != ".")
    b = tuple(part for part in b if part != ".")
    shorter, longer = sorted((a, b), key=len)
    return bool(shorter) and longer[len(longer) - len(shorter) :] == shorter


def _interrupted_notes(base_ref: RunRef, head_ref: RunRef, changes: list[TurnChange]) -> list[str]:
    notes = []
    never = sum(1 for change in changes if change.kind == "not_run")
    if head_ref.interrupted or never:
        stopped = "head was interrupted" if head_ref.interrupted else "head did not finish"
        notes.append(
            f"{stopped}: {_count(never, 'turn')} never ran there (listed as not run), "
            "compared only where both runs sent the turn"
        )
    if base_ref.interrupted:
        notes.append("base was interrupted: turns it never sent are listed as added, not as fixes")
    return notes


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _names(names: list[str], shown: int = 5) -> str:
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")
