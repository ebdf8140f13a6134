"""The HTML page's data for several models, repeats and a baseline (reports/run/html/
matrix.py, baseline.py): one column per model in `--model` order, a case's repeats kept
together, the text the columns share written once, a comparison's changes placed on the grid
(or kept aside when their turn is not in it), hostile model names and reasons escaped. What
the page draws from it is checked in Chromium: tests/e2e/test_html_report_browser.py.
"""

from __future__ import annotations

from typing import Any

from holodeck_lsp.reports.run import html
from holodeck_lsp.reports.run.html.data import page_data
from holodeck_lsp.schema.comparison import (
    Comparison,
    MetricDelta,
    RunRef,
    SideOfTurn,
    TurnChange,
)
from holodeck_lsp.schema.results import (
    MetricResult,
    ReportSummary,
    TestReport,
    TestResult,
    TurnResult,
)
from tests.reports.test_html_report import HOSTILE, embedded

GPT, CLAUDE = "openai:gpt-4o", "anthropic:claude-<b>sonnet</b>"


def turn(index: int, passed: bool, response: str = "42") -> TurnResult:
    return TurnResult(
        turn_index=index,
        input=f"question {index}",
        response=response,
        ground_truth=f"truth {index}",
        passed=passed,
    )


def case(
    name: str, index: int, model: str | None, repeat: int | None, *verdicts: bool
) -> TestResult:
    return TestResult(
        test_name=name,
        test_index=index,
        turns=[turn(i, v) for i, v in enumerate(verdicts)],
        passed=all(verdicts),
        model=model,
        repeat=repeat,
    )


def summary_of(results: list[TestResult]) -> ReportSummary:
    passed = sum(r.passed for r in results)
    return ReportSummary(
        total_tests=len(results),
        passed=passed,
        failed=len(results) - passed,
        pass_rate=100.0 * passed / len(results) if results else 0.0,
    )


def matrix_report(*results: TestResult, models: list[str], repeats: int = 1) -> TestReport:
    return TestReport(
        agent_name="agent",
        agent_config_path="agent.yaml",
        results=list(results),
        summary=summary_of(list(results)),
        timestamp="2026-12-01T00:00:00+00:00",
        holodeck_version="holodeck-lsp 0.1.0",
        models=models,
        repeats=repeats,
        model_summaries={m: summary_of([r for r in results if r.model == m]) for m in models},
    )


def two_models_three_repeats() -> TestReport:
    results = []
    for repeat in (1, 2, 3):
        # Claude's turn 1 of case "a" passes in repeat 2 only: flaky.
        results.append(case("a", 0, CLAUDE, repeat, True, repeat == 2))
        results.append(case("a", 0, GPT, repeat, True, True))
        results.append(case("b", 1, GPT, repeat, False))
        results.append(case("b", 1, CLAUDE, repeat, True))
    return matrix_report(*results, models=[GPT, CLAUDE], repeats=3)


def test_one_column_per_model_in_model_order_with_each_models_own_summary() -> None:
    report = two_models_three_repeats()
    data = page_data(report)
    assert [run["model"] for run in data["runs"]] == [GPT, CLAUDE]
    assert data["report"]["repeats"] == 3
    for run in data["runs"]:
        own = report.model_summaries[run["model"]]
        summary = run["summary"]
        assert (summary["cases"], summary["passed"], summary["failed"]) == (
            own.total_tests,
            own.passed,
            own.failed,
        )
    gpt, claude = (run["summary"] for run in data["runs"])
    assert (gpt["turns"], gpt["turns_passed"], gpt["flaky"]) == (9, 6, 0)
    assert (claude["turns"], claude["turns_passed"], claude["flaky"]) == (9, 7, 1)


def test_repeats_stay_together_first_run_first_and_shared_text_is_written_once() -> None:
    data = page_data(two_models_three_repeats())
    gpt, claude = data["runs"]
    a = gpt["cases"][0]
    assert (a["i"], a["name"], a["r"]) == (0, "a", 1)
    assert [more["r"] for more in a["more"]] == [2, 3]
    assert [t["input"] for t in a["turns"]] == ["question 0", "question 1"]  # the reference
    # Everything else names the same question and truth: left out, page.js puts it back.
    for entry in [*a["more"], claude["cases"][0], *claude["cases"][0]["more"]]:
        assert all("input" not in t and "truth" not in t for t in entry["turns"])
    flaky = [
        e["turns"][1].get("v", "passed") for e in [claude["cases"][0], *claude["cases"][0]["more"]]
    ]
    assert flaky == ["failed", "passed", "failed"]


def test_a_different_input_or_a_missing_truth_is_kept() -> None:
    edited = case("a", 0, CLAUDE, None, True)
    assert edited.turns is not None
    edited.turns[0].input = "edited question"
    edited.turns[0].ground_truth = None
    report = matrix_report(case("a", 0, GPT, None, True), edited, models=[GPT, CLAUDE])
    [claude_turn] = page_data(report)["runs"][1]["cases"][0]["turns"]
    assert claude_turn["input"] == "edited question"
    assert claude_turn["truth"] is None  # explicit: not the reference's truth


def test_every_result_gets_a_column_and_an_older_report_is_one_column() -> None:
    stray = case("a", 0, "ollama:llama3", None, True)
    report = matrix_report(case("a", 0, GPT, None, True), stray, models=[GPT])
    assert [run["model"] for run in page_data(report)["runs"]] == [GPT, "ollama:llama3"]
    older = matrix_report(case("a", 0, None, None, True), models=[])
    older.environment["model"] = "openai:gpt-4o-mini"
    [run] = page_data(older)["runs"]
    assert run["label"] == "openai:gpt-4o-mini" and "r" not in run["cases"][0]


def comparison(*changes: TurnChange) -> Comparison:
    return Comparison(
        base=RunRef(label="v1"),
        head=RunRef(label="latest"),
        changes=list(changes),
        unchanged_passing=4,
        unchanged_failing=1,
        notes=["the agent file changed"],
    )


def test_a_baselines_changes_are_placed_on_the_grid_or_kept_aside() -> None:
    regression = TurnChange(
        kind="regression",
        case="a",
        turn_index=1,
        model=CLAUDE,
        base=SideOfTurn(passed=True, passes=3, runs=3),
        head=SideOfTurn(passed=False, passes=1, runs=3, reason="metric 'numeric' failed"),
        metric_deltas=[MetricDelta(metric_name="numeric", base_score=1.0, head_score=0.0)],
    )
    fix = TurnChange(kind="fix", case="b", turn_index=0, model=GPT, base=SideOfTurn(passed=False))
    removed = TurnChange(kind="removed", case="gone", turn_index=2, model=GPT)
    data = page_data(two_models_three_repeats(), comparison=comparison(regression, fix, removed))
    baseline = data["baseline"]
    assert baseline["label"] == "v1" and baseline["notes"] == ["the agent file changed"]
    assert baseline["counts"] == {"regression": 1, "fix": 1, "removed": 1}
    placed = [(c["k"], c["m"], c["i"], c["t"]) for c in baseline["changes"]]
    assert placed == [("regression", 1, 0, 1), ("fix", 0, 1, 0), ("removed", None, None, 2)]
    first = baseline["changes"][0]
    assert first["base"] == {"v": "passed", "passes": 3, "runs": 3}
    assert first["head"]["reason"] == "metric 'numeric' failed"
    assert first["deltas"] == [{"n": "numeric", "k": "standard", "b": 1.0, "h": 0.0, "d": -1.0}]
    assert baseline["changes"][1]["head"] is None  # an absent side stays absent


def test_a_single_model_comparison_naming_no_model_lands_in_the_one_column() -> None:
    report = matrix_report(case("a", 0, None, None, False), models=[])
    change = TurnChange(kind="regression", case="a", turn_index=0)
    [placed] = page_data(report, comparison=comparison(change))["baseline"]["changes"]
    assert (placed["m"], placed["i"], placed["t"]) == (0, 0, 0)
    assert page_data(report)["baseline"] is None


def test_hostile_model_names_labels_and_reasons_cannot_end_the_data_block() -> None:
    hostile_model = "openai:" + HOSTILE
    report = matrix_report(
        case("a", 0, hostile_model, None, False), case("a", 0, GPT, None, True),
        models=[hostile_model, GPT],
    )  # fmt: skip
    change = TurnChange(
        kind="regression",
        case="a",
        turn_index=0,
        model=hostile_model,
        head=SideOfTurn(passed=False, reason=HOSTILE),
    )
    base = Comparison(base=RunRef(label=HOSTILE), head=RunRef(label="x"), changes=[change])
    page = html.render_html(report, base)
    data: Any = embedded(page)
    assert data == page_data(report, comparison=base)
    assert data["runs"][0]["label"] == hostile_model and data["baseline"]["label"] == HOSTILE
    assert page.count("<script") == 2 and page.count("</script>") == 2
    block = page.split('id="report-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in block and ">" not in block and "&" not in block


def test_render_keeps_its_old_signature_and_equals_render_html_without_a_baseline() -> None:
    report = two_models_three_repeats()
    where = {(0, 1): (12, 6)}
    assert html.render(report, where) == html.render_html(report, None, locations=where)
    data: Any = embedded(html.render_html(report, locations=where))
    assert data["runs"][0]["cases"][0]["turns"][1]["loc"] == [12, 6]


def test_metric_definitions_and_reasons_are_written_once_per_page() -> None:
    first = case("a", 0, GPT, None, False)
    assert first.turns is not None
    first.turns[0].metric_results = [
        MetricResult(
            metric_name="numeric", score=0.0, threshold=1.0, passed=False, reasoning="|1 - 2| = 1"
        ),
        MetricResult(metric_name="tone", kind="geval", score=0.9, threshold=0.5, passed=True,
                     model_used="ollama:qwen"),
    ]  # fmt: skip
    data = page_data(matrix_report(first, models=[GPT]))
    [metric_row, judge_row] = data["metrics"]
    assert metric_row == ["numeric", None, 1, None] and judge_row == [
        "tone",
        "geval",
        0.5,
        "ollama:qwen",
    ]
    [t] = data["runs"][0]["cases"][0]["turns"]
    assert [m["x"] for m in t["metrics"]] == [0, 1] and "n" not in t["metrics"][0]
    assert t["metrics"][0]["r"] == "|1 - 2| = 1"
    # The failure line names the metric's reasoning by index: page.js joins the two.
    assert t["why"] == [["metric 'numeric' failed: score 0 < threshold 1", 0]]
