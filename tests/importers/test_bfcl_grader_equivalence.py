"""The suite's bfcl_grader.py gives BFCL's verdicts: on constructed answers (the ground truth,
wrong order, an extra call, a wrong argument, a missing call, a silent turn) its per-turn
verdicts agree with a vendored copy of BFCL's multi_turn_checker (tests/fakes/bfcl_reference)
— turn k passes with every earlier one exactly when BFCL accepts turns 0..k."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from holodeck_lsp.importers.bfcl.importer import ImportedSuite, Selection, import_bfcl
from tests.fakes.bfcl_reference.multi_turn_checker import multi_turn_checker
from tests.importers.bfcl_support import FIXTURE, load_file

Turns = list[list[tuple[str, dict[str, Any]]]]
_names = itertools.count()


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[ImportedSuite, ModuleType]:
    folder = tmp_path_factory.mktemp("bfcl_suite")
    imported = import_bfcl(
        FIXTURE, Selection(categories=("base", "miss_func", "miss_param", "long_context"))
    )
    for name, text in imported.files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return imported, load_file(folder / "bfcl_grader.py", "bfcl_grader_under_test")


def _truth(suite: ImportedSuite, record_id: str) -> Turns:
    docs = {doc.name: doc for docs in suite.tools.values() for doc in docs}
    record = next(r for r in suite.records if r.id == record_id)
    return [[(c.name, c.named(docs[c.name].order)) for c in turn] for turn in record.calls]


def _text(name: str, args: dict[str, Any]) -> str:
    return f"{name}({', '.join(f'{key}={value!r}' for key, value in args.items())})"


def _reference(entry: dict[str, Any], answer: Turns, turns: int) -> bool:
    """BFCL's checker on turns 0..turns-1 of the answer (one model step per turn)."""
    model = [[[_text(n, a) for n, a in turn]] if turn else [[]] for turn in answer[:turns]]
    result = multi_turn_checker(
        model, entry["ground_truth"][:turns], entry, entry["category"], f"m{next(_names)}"
    )
    return bool(result["valid"])


def _ours(grader: ModuleType, entry: dict[str, Any], answer: Turns) -> list[bool]:
    return [grader.grade_turn(entry, k, answer[: k + 1])[0] for k in range(len(answer))]


def _swap_first_two(turns: Turns) -> Turns:
    changed = [list(t) for t in turns]
    for turn in changed:
        if len(turn) >= 2:
            turn[0], turn[1] = turn[1], turn[0]
            break
    return changed


def _extra_call(call: tuple[str, dict[str, Any]]) -> Callable[[Turns], Turns]:
    def change(turns: Turns) -> Turns:
        return [[*turns[0], call], *turns[1:]]

    return change


def _wrong_argument(turns: Turns) -> Turns:
    changed = [list(t) for t in turns]
    for turn in changed:
        for index, (name, args) in enumerate(turn):
            key = next((k for k, v in args.items() if isinstance(v, str)), None)
            if key is not None:
                turn[index] = (name, {**args, key: args[key] + "_x"})
                return changed
    raise AssertionError("no string argument to change")


def _missing_call(turns: Turns) -> Turns:
    return [turns[0][:-1], *turns[1:]]


def _silent_turn(turns: Turns) -> Turns:
    return [turns[0], [], *turns[2:]]


def _identity(turns: Turns) -> Turns:
    return turns


CHANGES: dict[str, Callable[[Turns], Turns]] = {
    "ground_truth": _identity,
    "wrong_order": _swap_first_two,
    "extra_read_call": _extra_call(("pwd", {})),
    "extra_changing_call": _extra_call(("mkdir", {"dir_name": "surplus"})),
    "wrong_argument": _wrong_argument,
    "missing_call": _missing_call,
    "silent_turn": _silent_turn,
}
RECORDS = [
    "multi_turn_base_0",
    "multi_turn_base_2",
    "multi_turn_base_14",
    "multi_turn_base_15",
    "multi_turn_miss_func_0",
    "multi_turn_miss_param_0",
    "multi_turn_long_context_0",
]


@pytest.mark.parametrize("change", sorted(CHANGES))
@pytest.mark.parametrize("record_id", RECORDS)
def test_per_turn_verdicts_match_bfcls_checker(
    suite: tuple[ImportedSuite, ModuleType], record_id: str, change: str
) -> None:
    imported, grader = suite
    entry = grader.bfcl_state.record(record_id)
    answer = CHANGES[change](_truth(imported, record_id))
    ours = _ours(grader, entry, answer)
    reference = [_reference(entry, answer, k + 1) for k in range(len(answer))]
    assert [all(ours[: k + 1]) for k in range(len(ours))] == reference


def test_the_constructed_answers_are_not_all_accepted(
    suite: tuple[ImportedSuite, ModuleType],
) -> None:
    """The comparison above means something only if BFCL rejects some of the answers."""
    imported, grader = suite
    entry = grader.bfcl_state.record("multi_turn_base_0")
    truth = _truth(imported, "multi_turn_base_0")
    verdicts = {name: all(_ours(grader, entry, change(truth))) for name, change in CHANGES.items()}
    assert verdicts["ground_truth"] and verdicts["extra_read_call"]
    assert not verdicts["wrong_argument"] and not verdicts["missing_call"]
    assert not verdicts["silent_turn"] and not verdicts["extra_changing_call"]


def test_the_grader_reads_earlier_turns_from_the_context(
    suite: tuple[ImportedSuite, ModuleType], tmp_path: Path
) -> None:
    """Through holodeck-lsp's GraderContext: turn 1 replays turn 0's calls too."""
    from holodeck_lsp.engine.code_graders import GraderContext
    from holodeck_lsp.schema.results import ToolInvocation

    imported, grader = suite
    truth = _truth(imported, "multi_turn_base_0")

    def calls(turn: list[tuple[str, dict[str, Any]]]) -> tuple[ToolInvocation, ...]:
        return tuple(ToolInvocation(name=f"tools-{n}", args=a) for n, a in turn)

    def context(earlier: tuple[tuple[ToolInvocation, ...], ...]) -> GraderContext:
        return GraderContext(
            turn_input="",
            agent_response="Done.",
            ground_truth=None,
            tool_invocations=calls(truth[1]),
            retrieval_context=None,
            turn_index=1,
            test_case_name="multi_turn_base_0",
            turn_config={},
            earlier_tool_invocations=earlier,
        )

    assert grader.bfcl_equivalent(context((calls(truth[0]),))).passed is True
    wrong = grader.bfcl_equivalent(context(((),)))
    assert wrong.passed is False and "state differs" in wrong.reason
    unknown = grader.bfcl_equivalent(context(()))
    assert unknown.passed is False and "not available" in unknown.reason
