"""A simulated-user case's results in the agent file (docs/simulated-users.md): the turns the
simulator generated, the `at_end` checks and the simulator's own outcome are written nowhere
in the file, so they are shown on the case's `simulated_user` key — a hint saying how the
conversation went, and a `holodeck-run` diagnostic per failure: an Error for the agent's (a
generated turn, the at_end checks), a Warning for the simulator's (not the agent's), and
Information where a live agent's answers diverged from a replayed recording."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from holodeck_lsp.schema.results import TestResult, TurnResult
    from holodeck_lsp.server.documents.positions import PositionConverter
    from holodeck_lsp.server.runs.run_locations import CaseLocation, Span, SuiteLocation

#: The lens mark of a case whose simulated user failed (no verdict on the agent).
SIMULATOR_FAILED = "!"
_ERROR = types.DiagnosticSeverity.Error


def simulation_diagnostics(
    suite: SuiteLocation,
    results: Mapping[int, TestResult | None],
    converter: PositionConverter,
    source: str,
) -> list[types.Diagnostic]:
    return [
        types.Diagnostic(
            range=_range(span, converter), message=message, severity=severity, source=source
        )
        for case, result in simulated_results(suite, results)
        for span, message, severity in simulation_items(case, result)
    ]


def simulation_hints(
    suite: SuiteLocation, results: Mapping[int, TestResult | None], converter: PositionConverter
) -> list[types.InlayHint]:
    """At the end of the `simulated_user:` line, as a turn's hint is at its `input:` line."""
    return [
        types.InlayHint(
            position=types.Position(*converter.to_client(case.simulated[0][0], 1 << 30)),
            label=label,
            padding_left=True,
        )
        for case, result in simulated_results(suite, results)
        if case.simulated is not None and (label := simulation_hint(result)) is not None
    ]


def _range(span: Span, converter: PositionConverter) -> types.Range:
    (start_line, start_char), (end_line, end_char) = span
    start = converter.to_client(start_line, start_char)
    end = converter.to_client(end_line, end_char)
    return types.Range(types.Position(*start), types.Position(*end))


def simulated_results(
    suite: SuiteLocation, results: Mapping[int, TestResult | None]
) -> Iterator[tuple[CaseLocation, TestResult]]:
    """Each simulated-user case of the document with a full-case result."""
    for case in suite.cases:
        result = results.get(case.index)
        if case.simulated is not None and result is not None:
            yield case, result


def simulation_items(
    case: CaseLocation, result: TestResult
) -> Iterator[tuple[Span, str, types.DiagnosticSeverity]]:
    """Each item to show on the case's `simulated_user` key."""
    simulation = result.simulation
    if case.simulated is None or simulation is None:
        return
    where = case.simulated
    scripted = len(case.turns)
    for turn in result.turns or []:
        if turn.turn_index >= scripted and not turn.passed:
            yield where, f"simulated turn {turn.turn_index + 1} failed: {_why(turn)}", _ERROR
    at_end = simulation.at_end
    if at_end is not None and not at_end.passed:
        yield where, f"at_end checks failed: {_why(at_end)}", _ERROR
    if simulation.failure is not None:
        message = (
            f"the simulated user failed ({simulation.failure}): {simulation.failure_detail}; "
            "not the agent's failure, no verdict on it"
        )
        yield where, message, types.DiagnosticSeverity.Warning
    if simulation.diverged_at_turn is not None:
        message = (
            f"the agent's answers diverged from the recording at turn "
            f"{simulation.diverged_at_turn + 1} ({simulation.divergence}): the recorded user "
            "turns after it may no longer fit"
        )
        yield where, message, types.DiagnosticSeverity.Information


def simulation_hint(result: TestResult) -> str | None:
    """`🤖 2 simulated turns · ###STOP###`, or the simulator's failure."""
    simulation = result.simulation
    if simulation is None:
        return None
    turns = simulation.simulated_turns
    text = f"🤖 {turns} simulated turn{'s' if turns != 1 else ''}"
    if simulation.failure is not None:
        return f"{text} · simulator failed: {simulation.failure}"
    if simulation.stop_marker is not None:
        text += f" · {simulation.stop_marker}"
    if simulation.at_end is not None:
        text += " · at_end ✓" if simulation.at_end.passed else " · at_end ✗"
    return text


def _why(turn: TurnResult) -> str:
    reasons = list(turn.errors)
    reasons += [f"metric {m.metric_name} failed" for m in turn.metric_results if m.passed is False]
    if turn.tools_matched is False:
        reasons.append("expected tools not called as asserted")
    return "; ".join(reasons) or "failed"
