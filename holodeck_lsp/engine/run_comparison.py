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

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from holodeck_lsp.engine.reports.view import Block, failure_reasons, skip_reason
from holodeck_lsp.schema.comparison import (
    ChangeKind,
    Comparison,
    MetricDelta,
    RunRef,
    SideOfTurn,
    TurnChange,
)
from holodeck_lsp.schema.results import TestReport, TestResult, TurnResult

#: (model or None, case label, turn index)
TurnKey = tuple[str | None, str, int]


def input_hash(text: str) -> str:
    """A short fingerprint of a turn's input (12 hex digits: collisions are not a concern for
    the few thousand turns of a suite, and it keeps JSON output readable)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@dataclass(slots=True)
class _Turn:
    """One side's repeats of one turn, gathered before they are summed into a SideOfTurn."""

    input: str
    results: list[TurnResult] = field(default_factory=list)

    def side(self) -> SideOfTurn:
        ran = [turn for turn in self.results if not turn.skipped]
        passes = sum(1 for turn in ran if turn.passed)
        reason = None
        for turn in ran:
            if not turn.passed:
                reason = one_line(failure_reasons(Block.of_turn(turn)))
                break
        if not ran and self.results:
            why = skip_reason(Block.of_turn(self.results[0]))
            reason = "not run: " + why.removeprefix(_SKIPPED_PREFIX)
        return SideOfTurn(
            passed=(passes == len(ran)) if ran else None,
            passes=passes,
            runs=len(ran),
            reason=reason,
            input_hash=input_hash(self.input),
        )

    def scores(self) -> dict[tuple[str, str], float]:
        """Mean score of each metric graded (not skipped, no error) over the repeats that ran."""
        sums: dict[tuple[str, str], list[float]] = {}
        for turn in self.results:
            if turn.skipped:
                continue
            for metric in turn.metric_results:
                if metric.skipped or metric.error is not None:
                    continue
                sums.setdefault((metric.metric_name, metric.kind), []).append(metric.score)
        return {key: sum(values) / len(values) for key, values in sums.items()}


def one_line(reasons: Sequence[str]) -> str:
    """The first reason, on one line (errors may carry tracebacks or multi-line output)."""
    first = reasons[0] if reasons else "failed"
    line = " ".join(first.split())
    return line if len(line) <= 300 else line[:299] + "…"


def case_label(result: TestResult, place: int) -> str:
    if result.test_name:
        return result.test_name
    return f"#{result.test_index if result.test_index is not None else place}"


def _models(report: TestReport) -> list[str]:
    seen = dict.fromkeys(result.model for result in report.results if result.model)
    return list(seen) or list(report.models)


def _gather(report: TestReport, *, ignore_model: bool) -> dict[TurnKey, _Turn]:
    turns: dict[TurnKey, _Turn] = {}
    places: dict[str | None, int] = {}
    for result in report.results:
        model = None if ignore_model else result.model
        # An unnamed case without test_index matches by its place among its model's cases
        # (repeats of a case share one place: counted on the first repeat only).
        place = places.get(model, 0)
        if result.repeat in (None, 1):
            places[model] = place + 1
        label = case_label(result, place)
        for turn in _turns(result):
            key = (model, label, turn.turn_index)
            entry = turns.get(key)
            if entry is None:
                entry = turns[key] = _Turn(turn.input)
            entry.results.append(turn)
    return turns


#: How the grading marks a turn that was never sent (engine/turn_grading.py).
_SKIPPED_PREFIX = "skipped: "


def _turns(result: TestResult) -> list[TurnResult]:
    """The case's turns. A single-turn case keeps no `skipped` flag, and `turn_results()`
    takes "errors and no answer" for never sent — but a backend error is that too, and it must
    count as a failure (a broken backend is the regression a gate exists for). So only the
    grading's own skip mark (`skipped: cancelled`, …) makes a single-turn case not run."""
    turns = result.turn_results()
    if result.turns is not None:
        return turns
    never_sent = result.agent_response is None and any(
        error.startswith(_SKIPPED_PREFIX) for error in result.errors
    )
    return [turn.model_copy(update={"skipped": never_sent}) for turn in turns]


def compare_reports(
    base: TestReport,
    head: TestReport,
    *,
    base_ref: RunRef,
    head_ref: RunRef,
    score_threshold: float = 0.05,
) -> Comparison:
    base_models, head_models = _models(base), _models(head)
    notes: list[str] = []
    # One model on each side, different ones: the question is "is B better than A", so turns
    # match across the models. Otherwise each model is compared with itself.
    ignore_model = len(base_models) == 1 and len(head_models) == 1 and base_models != head_models
    base_turns = _gather(base, ignore_model=ignore_model)
    head_turns = _gather(head, ignore_model=ignore_model)
    changes: list[TurnChange] = []
    unchanged_passing = unchanged_failing = 0
    for key in _keys_in_order(head_turns, base_turns):
        before, after = base_turns.get(key), head_turns.get(key)
        change = _change(key, before, after, score_threshold)
        if isinstance(change, TurnChange):
            changes.append(change)
        elif change:
            unchanged_passing += 1
        else:
            unchanged_failing += 1

    base_ref = _filled(base_ref, base, base_models)
    head_ref = _filled(head_ref, head, head_models)
    notes += _agent_notes(base_ref, head_ref, base_turns, head_turns, changes)
    if ignore_model:
        notes.append(
            f"different models: base ran {base_models[0]}, head ran {head_models[0]}; "
            "turns are matched ignoring the model (is head's model better than base's?)"
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
    return Comparison(
        base=base_ref,
        head=head_ref,
        changes=changes,
        unchanged_passing=unchanged_passing,
        unchanged_failing=unchanged_failing,
        score_threshold=score_threshold,
        notes=notes,
    )


def _keys_in_order(head: dict[TurnKey, _Turn], base: dict[TurnKey, _Turn]) -> list[TurnKey]:
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
    key: TurnKey, before: _Turn | None, after: _Turn | None, threshold: float
) -> TurnChange | bool:
    """The change of one turn, or True / False for an unchanged passing / failing turn."""
    model, case, index = key
    base = before.side() if before is not None else None
    head = after.side() if after is not None else None
    either = after if after is not None else before
    text = either.input if either is not None else ""

    def made(kind: ChangeKind, deltas: Iterable[MetricDelta] = ()) -> TurnChange:
        return TurnChange(
            kind=kind,
            case=case,
            turn_index=index,
            model=model,
            input=text,
            base=base,
            head=head,
            metric_deltas=list(deltas),
        )

    if head is None:
        return made("removed")
    if base is None:
        return made("added")
    if head.input_hash != base.input_hash:
        return made("edited")
    if head.runs == 0:
        return made("not_run")
    if base.runs == 0:
        # Never sent in the base (an interrupted base): there is nothing to compare with.
        return made("added")
    assert before is not None and after is not None
    deltas = _deltas(before, after, threshold)
    base_rate, head_rate = base.passes / base.runs, head.passes / head.runs
    if head_rate < base_rate:
        return made("regression", deltas)
    if head_rate > base_rate:
        return made("fix", deltas)
    if base.passes == 0 and base.reason != head.reason:
        return made("new_reason", deltas)
    if deltas:
        return made("score", deltas)
    return bool(head.passed)


def _deltas(before: _Turn, after: _Turn, threshold: float) -> list[MetricDelta]:
    base_scores, head_scores = before.scores(), after.scores()
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


def _filled(ref: RunRef, report: TestReport, models: list[str]) -> RunRef:
    """The ref with what the report itself knows, where the caller left it empty."""
    update: dict[str, object] = {}
    if not ref.models and models:
        update["models"] = models
    if report.interrupted and not ref.interrupted:
        update["interrupted"] = True
    if not ref.agent_path:
        update["agent_path"] = report.agent_config_path
    if ref.run_id is None and report.run_id is not None:
        update["run_id"] = report.run_id
    if ref.started is None and report.timestamp:
        update["started"] = report.timestamp
    return ref.model_copy(update=update) if update else ref


def _agent_notes(
    base_ref: RunRef,
    head_ref: RunRef,
    base_turns: dict[TurnKey, _Turn],
    head_turns: dict[TurnKey, _Turn],
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
