"""The last run's results, shown in the agent file: an inlay hint per turn, `holodeck-run`
diagnostics at the failing line, and the status in the run lenses' titles.

Results are kept per (document, case) together with the case's text when the run started. A
result whose case text is no longer the document's — the case was edited, during the run or
after it — is stale and dropped the next time anything is shown (lenses, hints, or the next
publish of diagnostics, which follows every edit). Cases that were not edited keep their
results even when other cases moved.

Diagnostics: this module contributes the run's items to every diagnostics report of the agent
document (pushed or pulled; see `DiagnosticsEngine.contributors`), after the checker's own.

A result re-graded from a recorded transcript (no model called: `regrade_on_edit` after an
edit, or the `holodeck.regradeCase` command of `editor_run`) says so in its hint, its
diagnostics and its lens title.

Severities: a turn never sent (skipped) is Information, an errored one a Warning; a
failure of a run the user started — Run all / case / turn, or the ↻ Re-grade
command — is an Error, as a failing test is. A failure found by re-grading while the user
types (`regrade_on_edit`, "quiet") is Information: it is a preview of what the edited case
would get, the text is valid, and red squiggles on a key still being typed would read as a
mistake in it. Running the case turns it into a real result (Error when it fails).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.parsed import Parsed
from holodeck_lsp.server.documents.positions import PositionConverter
from holodeck_lsp.server.runs.simulated_results import (
    SIMULATOR_FAILED,
    simulation_diagnostics,
    simulation_hints,
)

if TYPE_CHECKING:
    # Not at run time: building the pydantic result models and importing the YAML reader
    # would slow the server's start-up; they are imported when the first result arrives.
    from holodeck_lsp.checker.yaml_document import YamlDocument
    from holodeck_lsp.schema.results import MetricResult, TestResult, TurnResult
    from holodeck_lsp.server.runs.run_locations import Span, SuiteLocation, TurnLocation

SOURCE: Final = "holodeck-run"
PASSED: Final = "✓"
FAILED: Final = "✗"
SKIPPED: Final = "–"
#: The provider could not answer the turn: not measured (a warning, not a failure).
ERRORED: Final = "!"
REGRADED: Final = "re-graded from transcript"
_HINT_RESPONSE_LIMIT = 40


@dataclass(slots=True)
class CaseRecord:
    """The last results of one case: the whole case (Run case / Run all) and its turns."""

    #: The case's text when the run started.
    case_text: str
    #: The last full run of the case; None after a single-turn run replaced a turn.
    result: TestResult | None
    turns: dict[int, TurnResult] = field(default_factory=dict)
    #: Turns graded again from recorded answers, not by a run of the agent.
    regraded: set[int] = field(default_factory=set)
    #: Of those, the turns re-graded while the user typed (not by a command): see `severity`.
    quiet: set[int] = field(default_factory=set)

    def severity(self, turn: int) -> types.DiagnosticSeverity:
        """The severity of the turn's failures (the module doc says why)."""
        if turn in self.quiet:
            return types.DiagnosticSeverity.Information
        return types.DiagnosticSeverity.Error

    def regraded_turn(self, turn: int) -> bool:
        return turn in self.regraded


def mark(turn: TurnResult) -> str:
    if turn.skipped:
        return SKIPPED
    if turn.errored:
        return ERRORED
    return PASSED if turn.passed else FAILED


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def hint_label(turn: TurnResult, regraded: bool = False) -> str:
    """`✓ 25587 · numeric 1.00 · 1.3 s` (`… · re-graded from transcript`)."""
    parts = [mark(turn)]
    if turn.response is not None:
        parts[0] += " " + _one_line(turn.response, _HINT_RESPONSE_LIMIT)
    elif turn.skipped:
        parts[0] += " skipped"
    elif turn.errored:
        parts[0] += " errored (not measured)"
    if turn.tool_limit_reached is not None:  # the reason is the turn's diagnostic too
        parts.append(f"stopped after {turn.tool_limit_reached} tool rounds")
    for metric in turn.metric_results:
        if not metric.skipped:
            parts.append(f"{metric.metric_name} {metric.score:.2f}")
    if regraded:
        parts.append(REGRADED)
    elif not turn.skipped:
        parts.append(f"{turn.execution_time_ms / 1000:.1f} s")
    return " · ".join(parts)


#: Turns a metric's hover lists at most (an agent-level metric grades every turn).
_HOVER_TURNS = 8


def metric_hover(metric: MetricResult, turn_index: int, regraded: bool = False) -> str:
    """`**Direct** on turn 1: ✗ 0.20 (threshold 0.5) · judge openai:gpt-4o, 52 tokens`,
    then the judge's reason (or the error) as a quote."""
    if metric.skipped:
        verdict = "skipped"
    else:
        verdict = f"{PASSED if metric.passed else FAILED} {metric.score:.2f}"
        if metric.threshold is not None:
            verdict += f" (threshold {metric.threshold:g})"
    parts = [f"**{metric.metric_name}** on turn {turn_index}: {verdict}"]
    if metric.model_used is not None:
        judge = f"judge `{metric.model_used}`"
        if metric.judge_tokens is not None:
            judge += f", {metric.judge_tokens.total_tokens:,} tokens"
        parts.append(judge)
    if regraded:
        parts.append(REGRADED)
    text = " · ".join(parts)
    why = metric.error or metric.reasoning
    return f"{text}\n\n> {_one_line(why, 600)}" if why else text


def _arg_key(reason: str) -> str | None:
    """The argument an unmatched reason names: `arg 'a' mismatch: …` -> `a`."""
    if reason.startswith("arg '"):
        end = reason.find("'", 5)
        if end > 5:
            return reason[5:end]
    return None


def _metric_message(metric: MetricResult, turn: TurnResult) -> str:
    threshold = f" (threshold {metric.threshold:g})" if metric.threshold is not None else ""
    text = f"{metric.metric_name} {metric.score:.2f}{threshold}"
    if metric.error:
        return f"{text}: {metric.error}"
    if metric.kind == "code":
        return f"{text}: {metric.reasoning}" if metric.reasoning else text
    if metric.model_used is not None:  # an LLM judge's verdict: its reason says why
        reason = f" — {metric.reasoning}" if metric.reasoning else ""
        return f"{text}: judged by {metric.model_used}{reason}"
    expected = f"expected {turn.ground_truth!r}, " if turn.ground_truth is not None else ""
    detail = f"{text}: {expected}got {turn.response!r}"
    return f"{detail} — {metric.reasoning}" if metric.reasoning else detail


def turn_failures(
    turn: TurnResult, where: TurnLocation, suite: SuiteLocation
) -> list[tuple[Span, str]]:
    """Each reason the turn failed, at the line it is about (else the turn's input line)."""
    found: list[tuple[Span, str]] = []
    prefix = "errored (not measured): " if turn.errored else ""
    for error in turn.errors:
        found.append((where.input, prefix + error))
    for position, detail in enumerate(turn.arg_match_details or []):
        reason = detail.unmatched_reason
        if reason is None:
            continue
        span = where.input
        if position < len(where.tools):
            entry = where.tools[position]
            key = _arg_key(reason)
            span = entry.args.get(key, entry.span) if key is not None else entry.span
        found.append((span, f"expected_tools {detail.tool}: {reason}"))
    for metric in turn.metric_results:
        if metric.passed is not False:
            continue
        named = where.metrics.get(metric.metric_name) or suite.metrics.get(metric.metric_name)
        if metric.kind == "code":
            span = named or where.input
        else:
            span = where.ground_truth or named or where.input
        found.append((span, _metric_message(metric, turn)))
    if not found and turn.skipped:
        found.append((where.input, "skipped"))
    elif not found and not turn.passed:
        found.append((where.input, "failed"))
    return found


def _severity(turn: TurnResult, record: CaseRecord, index: int) -> types.DiagnosticSeverity:
    """A turn never sent (the run cancelled, the session lost after an earlier turn) is not
    a failure of its own: Information, like a skipped test, so that cancelling a run does not
    fill the Problems panel with errors. Errored (the provider's fault): a Warning."""
    if turn.skipped:
        return types.DiagnosticSeverity.Information
    if turn.errored:
        return types.DiagnosticSeverity.Warning
    return record.severity(index)


def _range(span: Span, converter: PositionConverter) -> types.Range:
    (start_line, start_char), (end_line, end_char) = span
    start = converter.to_client(start_line, start_char)
    end = converter.to_client(end_line, end_char)
    return types.Range(types.Position(*start), types.Position(*end))


class InlineResults:
    """Run results by document and case (see the module doc)."""

    def __init__(self, server: HolodeckServer) -> None:
        self.server = server
        self.records: dict[str, dict[int, CaseRecord]] = {}
        #: The last located suite per document, with the parse it was located in.
        self._located: dict[
            str, tuple[YamlDocument, frozenset[int] | None, SuiteLocation | None]
        ] = {}

    # -- results -----------------------------------------------------------------------------

    def record(
        self,
        uri: str,
        index: int,
        case_text: str,
        result: TestResult,
        graded_turn: int | None,
        *,
        regraded: bool = False,
        quiet: bool = False,
    ) -> None:
        cases = self.records.setdefault(uri, {})
        turns = {turn.turn_index: turn for turn in result.turn_results()}
        previous = cases.get(index)
        if graded_turn is None or previous is None or previous.case_text != case_text:
            kept = result if graded_turn is None else None
            cases[index] = CaseRecord(
                case_text,
                kept,
                turns,
                set(turns) if regraded else set(),
                set(turns) if regraded and quiet else set(),
            )
        else:
            previous.turns.update(turns)
            previous.result = None
            if regraded:
                previous.regraded.update(turns)
            else:
                previous.regraded.difference_update(turns)
            if regraded and quiet:
                previous.quiet.update(turns)
            else:
                previous.quiet.difference_update(turns)

    def current(
        self, parsed: Parsed | None, uri: str, *, every_case: bool = True
    ) -> tuple[SuiteLocation | None, dict[int, CaseRecord]]:
        """The suite's locations and the results still valid for the document's text (stale
        ones are dropped here). `every_case=False`: only the cases with results are located
        (all that diagnostics and hints need; a large suite takes long to walk)."""
        from holodeck_lsp.server.runs.run_locations import locate_suite

        cases = self.records.get(uri)
        if parsed is None:
            if uri not in self.server.workspace.text_documents:
                self.records.pop(uri, None)
                self._located.pop(uri, None)
            return None, {}
        wanted = None if every_case else frozenset(cases or ())
        located = self._located.get(uri)
        if located is not None and located[0] is parsed.document and located[1] in (None, wanted):
            suite = located[2]
        else:
            # Once per version: lenses, hints and each publish of a version ask for it.
            suite = locate_suite(parsed.document.root, wanted)
            self._located[uri] = (parsed.document, wanted, suite)
        if not cases:
            return suite, {}
        text = parsed.document.text
        for index, record in list(cases.items()):
            if suite is None or suite.case_text(text, index) != record.case_text:
                del cases[index]
        return suite, dict(cases)

    # -- hover -------------------------------------------------------------------------------

    def hover_text(self, parsed: Parsed, uri: str, line: int, character: int) -> str | None:
        """The stored results of the metric entry under (line, character) — YAML positions —
        for each graded turn it applies to: score, verdict, the judge and its reason."""
        if not self.records.get(uri):
            return None
        suite, cases = self.current(parsed, uri, every_case=False)
        if suite is None:
            return None
        shown: list[str] = []
        for where, turn, record in _turns_with_results(suite, cases):
            for metric in turn.metric_results:
                span = where.metrics.get(metric.metric_name) or suite.metrics.get(
                    metric.metric_name
                )
                if span is not None and span[0] <= (line, character) <= span[1]:
                    regraded = record.regraded_turn(where.index)
                    shown.append(metric_hover(metric, where.index, regraded))
        if not shown:
            return None
        more = len(shown) - _HOVER_TURNS
        text = "\n\n".join(shown[:_HOVER_TURNS])
        return text + (f"\n\n…and {more} more turns" if more > 0 else "")

    # -- diagnostics -------------------------------------------------------------------------

    def contribute(self, uri: str, parsed: Parsed) -> list[types.Diagnostic]:
        """The run's diagnostics for this parse of the document (a `Contributor`)."""
        if not self.records.get(uri):
            return []
        suite, cases = self.current(parsed, uri, every_case=False)
        return [] if suite is None else self.diagnostics(suite, cases, parsed.converter)

    @staticmethod
    def diagnostics(
        suite: SuiteLocation, cases: dict[int, CaseRecord], converter: PositionConverter
    ) -> list[types.Diagnostic]:
        return [
            types.Diagnostic(
                range=_range(span, converter),
                message=f"{message} ({REGRADED})" if record.regraded_turn(where.index) else message,
                severity=_severity(turn, record, where.index),
                source=SOURCE,
            )
            for where, turn, record in _turns_with_results(suite, cases)
            if not turn.passed
            for span, message in turn_failures(turn, where, suite)
        ] + simulation_diagnostics(suite, _full(cases), converter, SOURCE)

    @staticmethod
    def inlay_hints(
        suite: SuiteLocation, cases: dict[int, CaseRecord], converter: PositionConverter
    ) -> list[types.InlayHint]:
        # At the end of each turn's `input:` line (the converter clamps the huge column).
        return [
            types.InlayHint(
                position=types.Position(*converter.to_client(where.input[0][0], 1 << 30)),
                label=hint_label(turn, record.regraded_turn(where.index)),
                padding_left=True,
            )
            for where, turn, record in _turns_with_results(suite, cases)
        ] + simulation_hints(suite, _full(cases), converter)


def _full(cases: dict[int, CaseRecord]) -> dict[int, TestResult | None]:
    return {index: record.result for index, record in cases.items()}


def _turns_with_results(
    suite: SuiteLocation, cases: dict[int, CaseRecord]
) -> Iterator[tuple[TurnLocation, TurnResult, CaseRecord]]:
    """Each turn of the document that has a stored result, with where it is written and
    its case's record."""
    for case in suite.cases:
        record = cases.get(case.index)
        if record is None:
            continue
        for where in case.turns:
            turn = record.turns.get(where.index)
            if turn is not None:
                yield where, turn, record


def case_status(record: CaseRecord | None) -> tuple[str, str] | None:
    """(mark, suffix) for a case's lens — `✓`, `` or `✗`, ` (2/4 turns)` — or None when the case
    has no full-case result."""
    if record is None or record.result is None:
        return None
    regraded = " (re-graded)" if record.regraded else ""
    if record.result.passed:
        return PASSED, regraded
    if record.result.simulator_failed:  # no verdict on the agent (simulated_results.py)
        return SIMULATOR_FAILED, f" (simulator failed){regraded}"
    turns: Sequence[TurnResult] = record.result.turn_results()
    if len(turns) > 1:
        passed = sum(turn.passed for turn in turns)
        return FAILED, f" ({passed}/{len(turns)} turns){regraded}"
    return FAILED, regraded
