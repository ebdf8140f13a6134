"""engine/statistics/pass_k.py: each estimate against its definition — every k-subset of the n
sessions enumerated (itertools), and the closed forms with scipy's `comb` — on random cases."""

from __future__ import annotations

import itertools
import random

import pytest

from holodeck_lsp.engine.statistics.pass_k import (
    pass_at_k,
    pass_hat_k,
    suite_pass_at_k,
    suite_pass_hat_k,
)

# The reference libraries (scipy, statsmodels, numpy) are imported inside the tests that use
# them and these files share one xdist group, so one worker loads them rather than every
# worker at collection (tests/test_collection_imports.py says why).
pytestmark = pytest.mark.xdist_group("scientific")


def enumerated(passed: int, runs: int, k: int) -> tuple[float, float]:
    """(pass^k, pass@k) by drawing every k of the n sessions."""
    sessions = [True] * passed + [False] * (runs - passed)
    draws = list(itertools.combinations(sessions, k))
    return (
        sum(all(d) for d in draws) / len(draws),
        sum(any(d) for d in draws) / len(draws),
    )


@pytest.mark.parametrize("seed", range(4))
def test_matches_enumeration_and_scipy(seed: int) -> None:
    from scipy.special import comb

    rng = random.Random(seed)
    for _ in range(150):
        runs = rng.randint(1, 9)
        passed = rng.randint(0, runs)
        k = rng.randint(1, runs)
        hat, at = enumerated(passed, runs, k)
        assert pass_hat_k(passed, runs, k) == pytest.approx(hat, abs=1e-12)
        assert pass_at_k(passed, runs, k) == pytest.approx(at, abs=1e-12)
        scipy_hat = comb(passed, k, exact=True) / comb(runs, k, exact=True)
        assert pass_hat_k(passed, runs, k) == pytest.approx(scipy_hat, abs=1e-12)


def test_suite_means_and_known_values() -> None:
    # tau2-bench's reading: 3 of 4 sessions pass; pass^2 = C(3,2)/C(4,2) = 0.5.
    assert pass_hat_k(3, 4, 2) == 0.5
    assert pass_at_k(1, 4, 2) == 0.5
    assert pass_hat_k(3, 4, 1) == pass_at_k(3, 4, 1) == 0.75
    cases = [(4, 4), (2, 4), (0, 4)]
    assert suite_pass_hat_k(cases, 4) == pytest.approx(1 / 3)
    assert suite_pass_at_k(cases, 4) == pytest.approx(2 / 3)
    assert suite_pass_hat_k(cases, 5) is None
    with pytest.raises(ValueError):
        pass_hat_k(2, 4, 0)
