"""engine/statistics/paired.py against scipy and statsmodels on many random tables:
McNemar's exact p (scipy's exact binomial test, statsmodels' `mcnemar(exact=True)`), Newcombe's
interval (at φ = 0 it is statsmodels' independent "newcomb" interval; its coverage by
simulation), the clustered interval (statsmodels' OLS with errors clustered by case), and the
sample size (the power it promises, by simulation)."""

from __future__ import annotations

import random

import pytest

from holodeck_lsp.engine.statistics.paired import (
    cases_needed,
    clustered_difference,
    newcombe_from_margins,
    newcombe_paired,
    sign_test_p,
)

# The reference libraries (scipy, statsmodels, numpy) are imported inside the tests that use
# them and these files share one xdist group, so one worker loads them rather than every
# worker at collection (tests/test_collection_imports.py says why).
pytestmark = pytest.mark.xdist_group("scientific")


@pytest.mark.parametrize("seed", range(4))
def test_mcnemar_exact_matches_scipy_and_statsmodels(seed: int) -> None:
    from scipy.stats import binomtest
    from statsmodels.stats.contingency_tables import mcnemar

    rng = random.Random(seed)
    for _ in range(300):
        size = rng.choice([3, 10, 60, 500, 3000, 9000])
        better, worse = rng.randint(0, size), rng.randint(0, size)
        mine = sign_test_p(better, worse)
        if better + worse == 0:
            assert mine == 1.0
            continue
        scipy_p = binomtest(better, better + worse, 0.5).pvalue
        assert mine == pytest.approx(scipy_p, rel=1e-9, abs=1e-300)
        table = [[rng.randint(0, 50), better], [worse, rng.randint(0, 50)]]
        assert mine == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-9, abs=1e-300)


def test_mcnemar_known_value() -> None:
    # 37 cases only head passed, 14 only base: p = 0.00177 (two-sided exact).
    from scipy.stats import binomtest

    assert sign_test_p(37, 14) == pytest.approx(binomtest(37, 51).pvalue)
    assert sign_test_p(5, 5) == 1.0


@pytest.mark.parametrize("seed", range(3))
def test_newcombe_at_zero_correlation_is_statsmodels_newcomb(seed: int) -> None:
    from statsmodels.stats.proportion import confint_proportions_2indep

    rng = random.Random(seed)
    for _ in range(300):
        n = rng.choice([5, 20, 100, rng.randint(2, 3000)])
        head, base = rng.randint(0, n), rng.randint(0, n)
        low, high = confint_proportions_2indep(head, n, base, n, method="newcomb")
        mine = newcombe_from_margins(head, base, n, 0.0)
        assert mine.low == pytest.approx(low, abs=1e-9)
        assert mine.high == pytest.approx(high, abs=1e-9)


def test_newcombe_paired_covers_the_true_difference() -> None:
    """95 % intervals should hold the true difference about 95 % of the time (Newcombe
    reports 93-96 % for his method 10 over a wide range of tables)."""
    import numpy as np

    rng = np.random.default_rng(7)
    for cells, n in [
        ((0.5, 0.1, 0.2, 0.2), 60),
        ((0.7, 0.05, 0.1, 0.15), 200),
        ((0.3,) * 2 + (0.2,) * 2, 25),
    ]:
        truth = cells[2] - cells[1]
        draws = rng.multinomial(n, cells, size=2000)
        covered = 0
        for both, only_base, only_head, neither in draws:
            ci = newcombe_paired(int(both), int(only_base), int(only_head), int(neither))
            covered += ci.low <= truth <= ci.high
        assert 0.92 <= covered / 2000 <= 0.985, (cells, covered)


def test_newcombe_paired_bounds() -> None:
    ci = newcombe_paired(40, 14, 37, 9)
    assert -1 <= ci.low < 0.23 < ci.high <= 1
    assert ci.low > 0  # 37 against 14 of 100: a real difference
    assert newcombe_paired(0, 0, 0, 0).low == -1.0


@pytest.mark.parametrize("seed", range(3))
def test_clustered_difference_matches_statsmodels_cluster_ols(seed: int) -> None:
    import numpy as np
    from statsmodels.regression.linear_model import OLS

    rng = random.Random(seed)
    for _ in range(40):
        groups, turn_diffs, per_case = [], [], []
        for case in range(rng.randint(3, 60)):
            turns = rng.randint(1, 6)
            diffs = [rng.choice([-1.0, 0.0, 0.0, 1.0, 0.5, -0.25]) for _ in range(turns)]
            turn_diffs += diffs
            groups += [case] * turns
            per_case.append((sum(diffs), turns))
        y = np.array(turn_diffs)
        fit = OLS(y, np.ones((len(y), 1))).fit(
            cov_type="cluster", cov_kwds={"groups": np.array(groups)}
        )
        diff, ci = clustered_difference(per_case)
        assert diff == pytest.approx(fit.params[0], abs=1e-12)
        low, high = fit.conf_int(alpha=0.05)[0]
        # statsmodels' small-sample factor G/(G-1) * (N-1)/(N-K) is G/(G-1) with one
        # regressor (K = 1): the factor clustered_difference uses.
        assert ci.low == pytest.approx(max(-1.0, low), abs=1e-9)
        assert ci.high == pytest.approx(min(1.0, high), abs=1e-9)


@pytest.mark.parametrize(("discordant", "difference"), [(0.3, 0.1), (0.2, 0.05), (0.5, 0.15)])
def test_cases_needed_gives_the_promised_power(discordant: float, difference: float) -> None:
    import numpy as np
    from scipy.stats import binom

    n = cases_needed(discordant, difference)
    assert n is not None
    rng = np.random.default_rng(11)
    better_p, worse_p = (discordant + difference) / 2, (discordant - difference) / 2
    draws = rng.multinomial(n, [better_p, worse_p, 1 - discordant], size=3000)
    better, worse = draws[:, 0], draws[:, 1]
    total = better + worse
    p = np.minimum(1.0, 2 * binom.cdf(np.minimum(better, worse), total, 0.5))
    power = float(np.mean(p < 0.05))
    assert 0.74 <= power <= 0.88, (n, power)


def test_cases_needed_refuses_what_cannot_be_said() -> None:
    assert cases_needed(0.2, 0.0) is None
    assert cases_needed(0.0, 0.0) is None
    assert cases_needed(0.1, 0.2) is None
