"""engine/statistics/quantiles.py against numpy's default percentile on random samples."""

from __future__ import annotations

import random

import pytest

from holodeck_lsp.engine.statistics.quantiles import percentile

# The reference libraries (scipy, statsmodels, numpy) are imported inside the tests that use
# them and these files share one xdist group, so one worker loads them rather than every
# worker at collection (tests/test_collection_imports.py says why).
pytestmark = pytest.mark.xdist_group("scientific")


@pytest.mark.parametrize("seed", range(3))
def test_matches_numpy(seed: int) -> None:
    import numpy as np

    rng = random.Random(seed)
    for _ in range(300):
        values = [
            rng.choice([rng.random() * 5000, float(rng.randint(0, 9))])
            for _ in range(rng.randint(1, 60))
        ]
        q = rng.choice([50.0, 95.0, 0.0, 100.0, rng.random() * 100])
        assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)), abs=1e-9)


def test_edges() -> None:
    assert percentile([], 50) is None
    with pytest.raises(ValueError):
        percentile([1.0], 101)
