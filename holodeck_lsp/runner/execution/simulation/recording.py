"""A recording's simulated-user side (cassette format version 7, docs/cassettes.md): the
simulator's model, fingerprint, scripted-turn count, last message and failure, and the
judges' verdicts on the `at_end` checks — taken from the run's results, next to the turns the
recording backend kept (their inputs are the user's messages, scripted and simulated)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from holodeck_lsp.runner.cassette.conversion import simulation_of
from holodeck_lsp.runner.cassette.format import Cassette, CassetteJudgement, load_cassette
from holodeck_lsp.schema.results import TestResult


def add_simulations(
    cassette: Cassette,
    results: Sequence[TestResult],
    made: Mapping[tuple[int, int], list[CassetteJudgement]],
) -> None:
    """Each recorded case of a simulated-user result gets its simulator's side, with the
    live verdicts on its `at_end` checks (the judges record them as the turn after the last)."""
    by_index = {result.test_index: result for result in results if result.simulation}
    for case in cassette.cases:
        result = by_index.get(case.index)
        simulation = simulation_of(result) if result is not None else None
        if simulation is None:
            continue
        made_at_end = made.get((case.index, len(case.turns)))
        if made_at_end:
            simulation.at_end_judgements = list(made_at_end)
        case.simulated_user = simulation


def recorded_users(path: Path) -> Cassette:
    """A recording for `--replay-user`: raises CassetteFormatError (not a cassette) or
    ValueError (it records no simulated user), each saying what to do."""
    cassette = load_cassette(path)
    if not any(case.simulated_user is not None for case in cassette.cases):
        raise ValueError(
            f"--replay-user {path}: the recording has no simulated-user case (recordings of "
            "simulated users are version 7: record one with `run --record FILE`)"
        )
    return cassette
