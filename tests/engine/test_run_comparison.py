"""engine/run_comparison.py on hand-built reports: each kind of change, repeats as rates,
models, unnamed cases, different agent files, interrupted runs. (Real runs of the sample are
compared in tests/cli/test_compare_command.py.)"""

from __future__ import annotations

import json
from typing import Any

import pytest

from holodeck_lsp.engine.run_comparison import (
    ReportDataError,
    compare_report_bytes,
    compare_report_data,
    compare_reports,
    input_hash,
)
from holodeck_lsp.schema.comparison import Comparison, RunRef
from holodeck_lsp.schema.results import (
    ArgMatchDetail,
    MetricResult,
    ReportSummary,
    TestReport,
    TestResult,
    TurnResult,
)

BASE = RunRef(label="base")
HEAD = RunRef(label="head")


def turn(
    index: int,
    passed: bool = True,
    *,
    text: str | None = None,
    error: str | None = None,
    tool_reason: str | None = None,
    score: float | None = None,
    skipped: bool = False,
) -> TurnResult:
    metrics = []
    if score is not None:
        metrics.append(
            MetricResult(
                metric_name="judge", kind="geval", score=score, threshold=0.5, passed=score >= 0.5
            )
        )
    details = None
    if tool_reason is not None:
        details = [ArgMatchDetail(tool="lookup", unmatched_reason=tool_reason)]
    return TurnResult(
        turn_index=index,
        input=text if text is not None else f"question {index}",
        passed=passed and not skipped,
        errors=[error] if error else [],
        arg_match_details=details,
        metric_results=metrics,
        skipped=skipped,
    )


def case(
    name: str | None,
    *turns: TurnResult,
    model: str | None = None,
    repeat: int | None = None,
    index: int | None = None,
) -> TestResult:
    return TestResult(
        test_name=name,
        test_index=index,
        turns=list(turns),
        passed=all(t.passed for t in turns),
        model=model,
        repeat=repeat,
    )


def single(name: str, passed: bool, text: str = "hello", error: str | None = None) -> TestResult:
    return TestResult(
        test_name=name,
        test_input=text,
        agent_response="hi",
        passed=passed,
        errors=[error] if error else [],
    )


def report(*results: TestResult, path: str = "agent.yaml", interrupted: bool = False) -> TestReport:
    passed = sum(1 for r in results if r.passed)
    return TestReport(
        agent_name="demo",
        agent_config_path=path,
        results=list(results),
        summary=ReportSummary(
            total_tests=len(results),
            passed=passed,
            failed=len(results) - passed,
            pass_rate=100.0 * passed / len(results) if results else 100.0,
        ),
        timestamp="2026-12-01T00:00:00+00:00",
        holodeck_version="test",
        interrupted=interrupted,
    )


def compared(base: TestReport, head: TestReport, **kwargs: Any) -> Comparison:
    """Every way in: the reports, their parsed JSON, and their files' bytes decoded to what
    comparing reads (the command's fast path) — which must all find the same."""
    found = compare_reports(base, head, base_ref=BASE, head_ref=HEAD, **kwargs)
    base_data, head_data = json.loads(base.model_dump_json()), json.loads(head.model_dump_json())
    fast = compare_report_data(base_data, head_data, base_ref=BASE, head_ref=HEAD, **kwargs)
    assert fast == found
    base_bytes, head_bytes = base.model_dump_json().encode(), head.model_dump_json().encode()
    decoded = compare_report_bytes(base_bytes, head_bytes, base_ref=BASE, head_ref=HEAD, **kwargs)
    assert decoded == found
    return found


def kinds(comparison: Comparison) -> list[tuple[str, str, int]]:
    return [(c.kind, c.case, c.turn_index) for c in comparison.changes]


def test_identical_runs_have_no_changes() -> None:
    run = report(case("a", turn(0), turn(1, False, error="boom")))
    comparison = compared(run, run)
    assert comparison.changes == []
    assert (comparison.unchanged_passing, comparison.unchanged_failing) == (1, 1)
    assert not comparison.has_regressions and comparison.notes == []


def test_regression_carries_the_new_reason_in_the_reports_words() -> None:
    base = report(case("a", turn(0), turn(1)))
    head = report(case("a", turn(0), turn(1, False, tool_reason="arg 'column' mismatch")))
    comparison = compared(base, head)
    assert kinds(comparison) == [("regression", "a", 1)]
    [change] = comparison.changes
    assert change.base is not None and change.base.passed is True
    assert change.head is not None and change.head.reason == "tool 'lookup': arg 'column' mismatch"
    assert comparison.has_regressions


def test_fix_new_reason_and_same_failure() -> None:
    base = report(
        case("a", turn(0, False, error="timed out"), turn(1, False, error="x"), turn(2, False))
    )
    head = report(case("a", turn(0), turn(1, False, error="y"), turn(2, False)))
    comparison = compared(base, head)
    assert kinds(comparison) == [("fix", "a", 0), ("new_reason", "a", 1)]
    fix, new = comparison.changes
    assert fix.base is not None and fix.base.reason == "timed out"
    assert new.base is not None and new.head is not None
    assert (new.base.reason, new.head.reason) == ("x", "y")
    assert comparison.unchanged_failing == 1


def test_a_turn_failing_alike_is_unchanged_whatever_else_differs() -> None:
    """Equal reason ingredients skip building the turns; different ones that still make the
    same first reason (only the first error is shown) compare the reasons themselves."""
    slow, quick = turn(0, False, error="x"), turn(0, False, error="x")
    slow.execution_time_ms, quick.execution_time_ms = 900, 20
    base = report(case("a", slow, turn(1, False, error="same")))
    later = turn(1, False, error="same")
    later.errors.append("and a second error")
    head = report(case("a", quick, later))
    comparison = compared(base, head)
    assert comparison.changes == []
    assert comparison.unchanged_failing == 2


def test_score_moves_beyond_the_threshold_only() -> None:
    base = report(case("a", turn(0, score=0.9), turn(1, score=0.9), turn(2, score=0.6)))
    head = report(case("a", turn(0, score=0.7), turn(1, score=0.88), turn(2, score=0.65)))
    comparison = compared(base, head)
    assert kinds(comparison) == [("score", "a", 0)]
    [delta] = comparison.changes[0].metric_deltas
    assert delta.metric_name == "judge" and delta.kind == "geval"
    assert delta.delta is not None and round(delta.delta, 6) == -0.2
    # A delta of exactly the threshold is not beyond it.
    assert compared(base, head, score_threshold=0.2).changes == []
    assert kinds(compared(base, head, score_threshold=0.01)) == [
        ("score", "a", 0),
        ("score", "a", 1),
        ("score", "a", 2),
    ]


def test_an_edited_turn_is_listed_not_compared() -> None:
    base = report(case("a", turn(0), turn(1)))
    head = report(case("a", turn(0), turn(1, False, text="a different question")))
    comparison = compared(base, head)
    assert kinds(comparison) == [("edited", "a", 1)]
    [change] = comparison.changes
    assert change.head is not None and change.head.input_hash == input_hash("a different question")
    assert change.base is not None and change.base.input_hash != change.head.input_hash
    assert not comparison.has_regressions


def test_added_and_removed_cases_and_turns() -> None:
    base = report(case("a", turn(0), turn(1)), case("gone", turn(0)))
    head = report(case("a", turn(0)), case("new", turn(0, False)))
    comparison = compared(base, head)
    assert kinds(comparison) == [("removed", "a", 1), ("added", "new", 0), ("removed", "gone", 0)]


def test_single_turn_cases_are_turn_0() -> None:
    base = report(single("s", True), single("t", False, error="x"))
    head = report(single("s", False, error="wrong"), single("t", True))
    comparison = compared(base, head)
    assert kinds(comparison) == [("regression", "s", 0), ("fix", "t", 0)]
    assert comparison.changes[0].input == "hello"


def test_unnamed_cases_match_by_position() -> None:
    base = report(case(None, turn(0), index=0), case(None, turn(0), index=1))
    head = report(case(None, turn(0), index=0), case(None, turn(0, False, error="e"), index=1))
    assert kinds(compared(base, head)) == [("regression", "#1", 0)]


def test_repeats_compare_pass_rates() -> None:
    def repeats(name: str, outcomes: list[bool]) -> list[TestResult]:
        return [
            case(name, turn(0, ok, error=None if ok else "flaky"), repeat=n + 1)
            for n, ok in enumerate(outcomes)
        ]

    base = report(*repeats("drop", [True] * 5), *repeats("rise", [True, False, False]))
    head = report(*repeats("drop", [True, True, True, False, False]), *repeats("rise", [True] * 3))
    comparison = compared(base, head)
    assert kinds(comparison) == [("regression", "drop", 0), ("fix", "rise", 0)]
    drop = comparison.changes[0]
    assert drop.base is not None and (drop.base.passes, drop.base.runs) == (5, 5)
    assert drop.head is not None and (drop.head.passes, drop.head.runs) == (3, 5)
    assert drop.head.passed is False and drop.head.reason == "flaky"


def test_an_equal_flaky_rate_is_unchanged() -> None:
    run = report(case("f", turn(0), repeat=1), case("f", turn(0, False, error="e"), repeat=2))
    comparison = compared(run, run)
    assert comparison.changes == [] and comparison.unchanged_failing == 1


def test_one_model_each_side_matches_across_models_and_says_so() -> None:
    base = report(case("a", turn(0), model="ollama:qwen"))
    head = report(case("a", turn(0, False, error="e"), model="openai:gpt-4o-mini"))
    comparison = compared(base, head)
    assert kinds(comparison) == [("regression", "a", 0)]
    assert comparison.changes[0].model is None
    assert any("ollama:qwen" in n and "openai:gpt-4o-mini" in n for n in comparison.notes)
    assert comparison.base.models == ["ollama:qwen"]


def test_several_models_match_per_model() -> None:
    base = report(case("a", turn(0), model="m:1"), case("a", turn(0), model="m:2"))
    head = report(case("a", turn(0), model="m:1"), case("a", turn(0, False), model="m:3"))
    comparison = compared(base, head)
    assert [(c.kind, c.model) for c in comparison.changes] == [
        ("added", "m:3"),
        ("removed", "m:2"),
    ]
    assert any("only in base: m:2" in n and "only in head: m:3" in n for n in comparison.notes)


def test_different_agent_files_state_the_differences_first() -> None:
    base = report(case("a", turn(0), turn(1)), case("b", turn(0)), path="one/agent.yaml")
    head = report(
        case("a", turn(0, text="changed"), turn(1), turn(2)),
        case("c", turn(0)),
        path="two/agent.yaml",
    )
    comparison = compared(base, head)
    [note] = comparison.notes
    assert note.startswith("different agent files: base one/agent.yaml, head two/agent.yaml:")
    assert "1 case only in head (c)" in note and "1 case only in base (b)" in note
    assert "1 turn added to cases of both" in note and "1 turn with an edited input" in note


def test_the_same_path_with_another_hash_is_a_changed_file() -> None:
    run = report(case("a", turn(0)))
    comparison = compare_reports(
        run,
        run,
        base_ref=RunRef(label="b", agent_sha256="1" * 64),
        head_ref=RunRef(label="h", agent_sha256="2" * 64),
    )
    assert comparison.notes == [
        "the agent file agent.yaml changed between the runs: the same cases and turns"
    ]


def test_an_interrupted_head_lists_the_turns_it_never_ran() -> None:
    base = report(case("a", turn(0), turn(1)), case("b", turn(0, False, error="e")))
    head = report(
        case("a", turn(0), turn(1, skipped=True, error="cancelled")),
        case("b", turn(0, skipped=True)),
        interrupted=True,
    )
    comparison = compared(base, head)
    assert kinds(comparison) == [("not_run", "a", 1), ("not_run", "b", 0)]
    assert not comparison.has_regressions
    assert comparison.head.interrupted
    assert comparison.changes[0].head is not None
    assert comparison.changes[0].head.reason == "not run: cancelled"
    assert any(n.startswith("head was interrupted: 2 turns never ran") for n in comparison.notes)


def test_an_interrupted_base_never_makes_fixes() -> None:
    base = report(case("a", turn(0, skipped=True)), interrupted=True)
    head = report(case("a", turn(0)))
    comparison = compared(base, head)
    assert kinds(comparison) == [("added", "a", 0)]
    assert any(n.startswith("base was interrupted") for n in comparison.notes)


def test_the_comparison_survives_json() -> None:
    base = report(case("a", turn(0, score=0.9)), case("b", turn(0)))
    head = report(case("a", turn(0, False, error="e", score=0.1)))
    comparison = compared(base, head)
    assert Comparison.model_validate_json(comparison.model_dump_json()) == comparison


def test_one_agent_file_run_from_two_folders_is_the_same_file() -> None:
    base = report(case("a", turn(0)), path="sample/fa/agent.yaml")
    head = report(case("a", turn(0)), path="/project/repo/sample/fa/agent.yaml")
    assert compared(base, head).notes == []
    assert compared(base, report(case("a", turn(0)), path="other/agent.yaml")).notes != []


def test_a_backend_error_on_a_single_turn_case_is_a_failure_a_skip_is_not_run() -> None:
    base = report(single("broken", True), single("stopped", True))
    head = report(
        single("broken", False, error="backend error: 401 unauthorized"),
        single("stopped", False, error="skipped: cancelled"),
    )
    for result in head.results:
        result.agent_response = None
    comparison = compared(base, head)
    assert kinds(comparison) == [("regression", "broken", 0), ("not_run", "stopped", 0)]
    assert comparison.changes[0].head is not None
    assert comparison.changes[0].head.reason == "backend error: 401 unauthorized"
    assert comparison.changes[1].head is not None
    assert comparison.changes[1].head.reason == "not run: cancelled"


@pytest.mark.parametrize(
    ("path", "value"),
    [(("results", 0, "turns", 0, "passed"), "yes"), (("results", 0, "test_name"), 3),
     (("results",), {}), (("results", 0, "turns", 0, "metric_results", 0, "score"), "high")],
)  # fmt: skip
def test_data_not_shaped_like_a_report_is_refused(path: tuple[Any, ...], value: Any) -> None:
    data = json.loads(report(case("a", turn(0, score=0.9))).model_dump_json())
    target = data
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    with pytest.raises(ReportDataError):
        compare_report_data(data, data, base_ref=BASE, head_ref=HEAD)
    raw = json.dumps(data).encode()
    with pytest.raises(ReportDataError):
        compare_report_bytes(raw, raw, base_ref=BASE, head_ref=HEAD)


def test_bytes_that_are_not_json_are_refused() -> None:
    with pytest.raises(ReportDataError):
        compare_report_bytes(b"{not json", b"{}", base_ref=BASE, head_ref=HEAD)
