"""`holodeck-lsp compare` with statistics, through the console script on report files written
by the project's JSON writer (tests/cli/built_reports.py): the paired finding in words, the
`--gate significant` flag beside the any-regression gate, a flaky turn never a regression on
its own, and each side's cost and speed."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.exit_codes import EXIT_OK, EXIT_REGRESSED
from holodeck_lsp.schema.comparison import Comparison
from tests.cli.built_reports import case, cli, paired_reports, report, write

# The reference libraries (scipy, statsmodels, numpy) are imported inside the tests that use
# them and these files share one xdist group, so one worker loads them rather than every
# worker at collection (tests/test_collection_imports.py says why).
pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("scientific"),
]  # slow: a process per command


def _json(base: Path, head: Path, *flags: str) -> tuple[int, Comparison]:
    done = cli("compare", base, head, "--format", "json", *flags)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, Comparison.model_validate_json(done.stdout)


def test_a_significant_improvement_in_words_and_both_gates(tmp_path: Path) -> None:
    from scipy.stats import binomtest

    base, head = paired_reports(tmp_path, both=40, only_base=14, only_head=37, neither=9)
    done = cli("compare", base, head)
    # 14 turns regressed: the any-regression gate fails, as it always did.
    assert done.returncode == EXIT_REGRESSED, done.stderr
    p = binomtest(37, 51).pvalue
    assert "head passes 23.0 points more cases than base [" in done.stdout, done.stdout
    assert f"37 cases only head passed, 14 only base; p = {p:.3f}" in done.stdout
    assert "cost and speed: base 12,000 tokens, 0.1000 USD" in done.stdout
    assert "turn p50 1.00 s, p95 1.00 s; head 12,000 tokens" in done.stdout
    # The significance gate: head is better, so nothing fails.
    assert cli("compare", base, head, "--gate", "significant").returncode == EXIT_OK
    # The other way round head is significantly worse: both gates fail.
    assert cli("compare", head, base, "--gate", "significant").returncode == EXIT_REGRESSED
    status, comparison = _json(head, base)
    [figures] = comparison.statistics
    assert status == EXIT_REGRESSED and figures.significant and figures.difference == -23.0
    assert figures.low < -23.0 < figures.high < 0


def test_no_detectable_difference_says_how_many_cases_would_tell(tmp_path: Path) -> None:
    from scipy.stats import binomtest

    base, head = paired_reports(tmp_path, both=30, only_base=4, only_head=6, neither=10)
    done = cli("compare", base, head, "--gate", "significant")
    assert done.returncode == EXIT_OK  # 4 regressions, none significant
    assert "no difference this suite can detect (head passes 4.0 points more cases" in done.stdout
    assert "it would take about" in done.stdout
    assert cli("compare", base, head).returncode == EXIT_REGRESSED  # the any gate still fails
    _status, comparison = _json(base, head)
    [figures] = comparison.statistics
    assert figures.cases_needed is not None and figures.cases_needed > 50
    assert figures.p_value == pytest.approx(binomtest(6, 10).pvalue)


def test_two_models_are_named_in_the_sentence(tmp_path: Path) -> None:
    base, head = paired_reports(
        tmp_path, 10, 1, 9, 0, base_model="openai:gpt-a", head_model="anthropic:claude-b"
    )
    done = cli("compare", base, head)
    assert "anthropic:claude-b passes 40.0 points more cases than openai:gpt-a" in done.stdout


def test_a_flaky_turn_is_listed_never_a_regression_on_its_own(tmp_path: Path) -> None:
    # Case 0 passed 3/3 in base and 2/3 in head: flaky. Case 1: 3/3 and 3/3.
    base = report([case(i, [True], repeat=r) for i in (0, 1) for r in (1, 2, 3)], repeats=3)
    head = report(
        [case(i, [not (i == 0 and r == 2)], repeat=r) for i in (0, 1) for r in (1, 2, 3)],
        repeats=3,
    )
    base_file, head_file = write(tmp_path / "b.json", base), write(tmp_path / "h.json", head)
    done = cli("compare", base_file, head_file)
    assert done.returncode == EXIT_OK, done.stdout
    assert "case 0 turn 0 [openai:gpt-a] (flaky: not counted)" in done.stdout
    assert "1 regression (1 flaky, not counted)" in done.stdout
    # Never ran on the head side at all (0/3) is not flaky: a regression.
    gone = report([case(i, [i != 0], repeat=r) for i in (0, 1) for r in (1, 2, 3)], repeats=3)
    assert cli("compare", base_file, write(tmp_path / "g.json", gone)).returncode == 1


def test_multi_turn_cases_are_clustered_by_case(tmp_path: Path) -> None:
    # 30 three-turn cases; head fails turn 2 of ten of them.
    from scipy.stats import binomtest

    base = report([case(i, [True, True, True]) for i in range(30)])
    head = report([case(i, [True, True, i >= 10]) for i in range(30)])
    status, comparison = _json(write(tmp_path / "b.json", base), write(tmp_path / "h.json", head))
    [figures] = comparison.statistics
    assert figures.unit == "turn" and figures.turns == 90 and figures.cases == 30
    assert figures.difference == pytest.approx(-100 * 10 / 90)
    assert figures.cases_base_better == 10 and figures.cases_head_better == 0
    assert figures.p_value == pytest.approx(binomtest(0, 10).pvalue)
    assert status == EXIT_REGRESSED
