"""An imported BFCL suite judges what real models do as BFCL does (issue 36): on answers with
each trait of a real model's turn — long loops, the step limit passed, names that are no
function of the record (format tokens in the name, another class's function), arguments that
are not JSON, arguments of the wrong type, several calls in one step, empty turns — the
suite's bfcl_grader.py gives BFCL's verdict for the whole record and for its first failing
turn. The reference is a vendored copy of BFCL's multi_turn_checker (tests/fakes/
bfcl_reference) plus the two rules of BFCL's eval runner and inference loop around it, read
from the `bfcl-eval` wheel (bfcl_eval/eval_checker/eval_runner.py,
model_handler/base_handler.py): a record force-terminated at the step limit is invalid, and a
step the checker cannot decode (arguments that are not JSON) is skipped."""

from __future__ import annotations

import itertools
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from holodeck_lsp.engine.code_graders import GraderContext
from holodeck_lsp.importers.bfcl.importer import ImportedSuite, Selection, import_bfcl
from holodeck_lsp.schema.results import ToolInvocation
from tests.fakes.bfcl_reference.multi_turn_checker import multi_turn_checker
from tests.importers.bfcl_support import FIXTURE, load_file

#: One call: (function, arguments) — or (function, None) for arguments that were not JSON.
Call = tuple[str, dict[str, Any] | None]
Step = list[Call]
Turn = list[Step]
#: BFCL's step limit a turn (bfcl_eval/constants/default_prompts.py MAXIMUM_STEP_LIMIT): its
#: loop stops a turn when more steps than this made calls; holodeck-lsp's `max_tool_rounds`
#: has the same default.
STEP_LIMIT = 20
#: The vendored checker keeps its instances in module globals by model name and record: a
#: name of its own per check, unlike any other test's, so no state is shared.
_names = itertools.count()


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[ImportedSuite, ModuleType]:
    folder = tmp_path_factory.mktemp("bfcl_parity")
    imported = import_bfcl(FIXTURE, Selection(categories=("base", "miss_param")))
    for name, text in imported.files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return imported, load_file(folder / "bfcl_grader.py", "bfcl_grader_parity")


def _truth(suite: ImportedSuite, record_id: str) -> list[list[Call]]:
    docs = {doc.name: doc for docs in suite.tools.values() for doc in docs}
    record = next(r for r in suite.records if r.id == record_id)
    return [[(c.name, c.named(docs[c.name].order)) for c in turn] for turn in record.calls]


def _text(name: str, args: dict[str, Any]) -> str:
    return f"{name}({', '.join(f'{key}={value!r}' for key, value in args.items())})"


# -- the two sides ------------------------------------------------------------------------------


def _bfcl(entry: dict[str, Any], answer: list[Turn]) -> tuple[bool, int | None]:
    """BFCL's verdict of the record and its first failing turn (None: valid)."""
    limit_turn = next((k for k, turn in enumerate(answer) if len(turn) > STEP_LIMIT), None)
    first = None
    for k in range(len(answer)):
        decoded = [
            [[_text(name, args) for name, args in step] for step in turn if _decodable(step)]
            for turn in answer[: k + 1]
        ]
        truth = entry["ground_truth"][: k + 1]
        model = f"parity{next(_names)}"
        result = multi_turn_checker(decoded, truth, entry, entry["category"], model)
        if not result["valid"]:
            first = k
            break
    if limit_turn is not None and (first is None or limit_turn < first):
        first = limit_turn  # force-terminated: eval_runner fails the whole record
    return first is None, first


def _decodable(step: Step) -> bool:
    """BFCL decodes a step whole: one call whose arguments are not JSON fails the step."""
    return bool(step) and all(args is not None for _, args in step)


def _ours(grader: ModuleType, entry: dict[str, Any], answer: list[Turn]) -> tuple[bool, int | None]:
    """The suite's verdicts, through the grader's own entry point (a GraderContext per turn,
    as holodeck-lsp grades a run): the record passes when every turn does."""
    recorded = [tuple(_invocation(call) for step in turn for call in step) for turn in answer]
    for k, turn in enumerate(answer):
        context = GraderContext(
            turn_input="",
            agent_response="Done.",
            ground_truth=None,
            tool_invocations=recorded[k],
            retrieval_context=None,
            turn_index=k,
            test_case_name=entry["id"],
            turn_config={},
            earlier_tool_invocations=tuple(recorded[:k]),
            tool_limit_reached=STEP_LIMIT if len(turn) > STEP_LIMIT else None,
        )
        if not grader.bfcl_equivalent(context).passed:
            return False, k
    return True, None


def _invocation(call: Call) -> Any:
    name, args = call
    if args is None:  # what the backend records of arguments that were not JSON
        return SimpleNamespace(name=f"tools-{name}", args={}, call_problem="invalid_json")
    return ToolInvocation(name=f"tools-{name}", args=args)


# -- answers with each trait ----------------------------------------------------------------------


def _one_call_a_step(truth: list[list[Call]]) -> list[Turn]:
    return [[[call] for call in turn] for turn in truth]


def _parallel(truth: list[list[Call]]) -> list[Turn]:
    return [[list(turn)] if turn else [] for turn in truth]


def _long_loop(truth: list[list[Call]]) -> list[Turn]:
    """Turn 0 reads around for 15 steps (pwd, ls) before doing its work."""
    reads: Turn = [[("pwd", {})] if n % 2 else [("ls", {"a": True})] for n in range(15)]
    return [reads + _one_call_a_step(truth)[0], *_one_call_a_step(truth)[1:]]


def _past_the_limit(truth: list[list[Call]]) -> list[Turn]:
    """Turn 1 does its work, then keeps reading past the step limit."""
    turns = _one_call_a_step(truth)
    turns[1] = turns[1] + [[("pwd", {})]] * (STEP_LIMIT + 1 - len(turns[1]))
    return turns


def _at_the_limit(truth: list[list[Call]]) -> list[Turn]:
    """Turn 1 takes exactly the limit's steps: allowed."""
    turns = _one_call_a_step(truth)
    turns[1] = turns[1] + [[("pwd", {})]] * (STEP_LIMIT - len(turns[1]))
    return turns


def _with(extra: Step) -> Any:
    def change(truth: list[list[Call]]) -> list[Turn]:
        turns = _one_call_a_step(truth)
        turns[0] = [extra, *turns[0]]
        return turns

    return change


def _malformed_instead_of_first(truth: list[list[Call]]) -> list[Turn]:
    """The first call's arguments were not JSON (the model did not retry it)."""
    turns = _one_call_a_step(truth)
    name = turns[0][0][0][0]
    turns[0][0] = [(name, None)]
    return turns


def _malformed_then_retried(truth: list[list[Call]]) -> list[Turn]:
    turns = _one_call_a_step(truth)
    name = turns[0][0][0][0]
    turns[0] = [[(name, None)], *turns[0]]
    return turns


def _empty_turn(truth: list[list[Call]]) -> list[Turn]:
    turns = _one_call_a_step(truth)
    turns[1] = []
    return turns


TRAITS: dict[str, Any] = {
    "one_call_a_step": _one_call_a_step,
    "parallel_calls": _parallel,
    "long_loop": _long_loop,
    "at_the_step_limit": _at_the_limit,
    "past_the_step_limit": _past_the_limit,
    "format_tokens_in_the_name": _with([("ls<|channel|>commentary", {"a": True})]),
    "another_class_function": _with([("post_tweet", {"content": "hello"})]),
    "not_a_function": _with([("rm_rf_everything", {})]),
    "wrong_argument_type": _with([("cd", {"folder": 5})]),
    "wrong_argument_type_that_changes_state": _with([("mkdir", {"dir_name": 7})]),
    "malformed_json_not_retried": _malformed_instead_of_first,
    "malformed_json_retried": _malformed_then_retried,
    "empty_turn": _empty_turn,
}
RECORDS = ["multi_turn_base_0", "multi_turn_base_2", "multi_turn_base_15"]


@pytest.mark.parametrize("trait", sorted(TRAITS))
@pytest.mark.parametrize("record_id", RECORDS)
def test_the_record_and_its_first_failing_turn_are_judged_as_bfcl_judges_them(
    suite: tuple[ImportedSuite, ModuleType], record_id: str, trait: str
) -> None:
    imported, grader = suite
    entry = grader.bfcl_state.record(record_id)
    answer = TRAITS[trait](_truth(imported, record_id))
    assert _ours(grader, entry, answer) == _bfcl(entry, answer)


def test_a_turn_bfcl_checks_nothing_on_passes_empty_as_in_bfcl(
    suite: tuple[ImportedSuite, ModuleType],
) -> None:
    """miss_param: the turn where the model should ask for the missing detail has no ground
    truth; an empty answer there is fine in both."""
    imported, grader = suite
    entry = grader.bfcl_state.record("multi_turn_miss_param_0")
    answer = _one_call_a_step(_truth(imported, "multi_turn_miss_param_0"))
    assert any(not turn for turn in answer)
    assert _ours(grader, entry, answer) == _bfcl(entry, answer) == (True, None)


def test_the_traits_are_not_all_accepted(suite: tuple[ImportedSuite, ModuleType]) -> None:
    """The comparison means something only if BFCL rejects some of these answers, for the
    reasons the traits name."""
    imported, grader = suite
    entry = grader.bfcl_state.record("multi_turn_base_0")
    truth = _truth(imported, "multi_turn_base_0")
    verdicts = {name: _bfcl(entry, change(truth)) for name, change in TRAITS.items()}
    assert verdicts["long_loop"] == verdicts["parallel_calls"] == (True, None)
    assert verdicts["at_the_step_limit"] == (True, None)
    assert verdicts["past_the_step_limit"] == (False, 1)
    assert verdicts["empty_turn"] == (False, 1)
    assert verdicts["malformed_json_not_retried"][0] is False
    assert verdicts["malformed_json_retried"] == (True, None)


def test_a_force_terminated_turn_says_so(suite: tuple[ImportedSuite, ModuleType]) -> None:
    imported, grader = suite
    entry = grader.bfcl_state.record("multi_turn_base_0")
    truth = _truth(imported, "multi_turn_base_0")
    passed, reason, details = grader.grade_turn(entry, 0, [truth[0]], STEP_LIMIT)
    assert not passed and "force-terminated" in reason and "20 tool rounds" in reason
    assert details["tool_limit_reached"] == STEP_LIMIT


def test_the_grader_file_is_the_samples(suite: tuple[ImportedSuite, ModuleType]) -> None:
    sample = Path(__file__).resolve().parents[2] / "sample" / "bfcl-multi-turn" / "bfcl_grader.py"
    assert sample.read_text() == Path(suite[1].__file__ or "").read_text()
