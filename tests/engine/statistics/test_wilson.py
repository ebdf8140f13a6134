"""engine/statistics/wilson.py against statsmodels' `proportion_confint(method="wilson")` on
many random counts, and the edges (no trials, none or all passed)."""

from __future__ import annotations

import random

import pytest

from holodeck_lsp.engine.statistics.wilson import Interval, wilson_interval, z_of

# The reference libraries (scipy, statsmodels, numpy) are imported inside the tests that use
# them and these files share one xdist group, so one worker loads them rather than every
# worker at collection (tests/test_collection_imports.py says why).
pytestmark = pytest.mark.xdist_group("scientific")


@pytest.mark.parametrize("seed", range(5))
def test_matches_statsmodels_on_random_counts(seed: int) -> None:
    from statsmodels.stats.proportion import proportion_confint

    rng = random.Random(seed)
    for _ in range(400):
        trials = rng.choice([1, 2, 3, 5, 10, 40, 200, 5000, rng.randint(1, 20000)])
        successes = rng.randint(0, trials)
        confidence = rng.choice([0.95, 0.9, 0.99, 0.8])
        low, high = proportion_confint(successes, trials, alpha=1 - confidence, method="wilson")
        mine = wilson_interval(successes, trials, confidence)
        assert mine.low == pytest.approx(low, abs=1e-12)
        assert mine.high == pytest.approx(high, abs=1e-12)


def test_edges() -> None:
    assert wilson_interval(0, 0) == Interval(0.0, 1.0)
    assert wilson_interval(0, 12).low == 0.0
    assert wilson_interval(0, 12).high > 0.2  # not a point: 0 of 12 says little
    assert wilson_interval(12, 12).high == 1.0
    assert wilson_interval(3, 4).percent() == "[30.1, 95.4]"
    with pytest.raises(ValueError):
        wilson_interval(5, 4)
    with pytest.raises(ValueError):
        z_of(1.5)
