"""engine/statistics/quantiles.py against numpy's default percentile on random samples."""

from __future__ import annotations

import random

import numpy as np
import pytest

from holodeck_lsp.engine.statistics.quantiles import percentile


@pytest.mark.parametrize("seed", range(3))
def test_matches_numpy(seed: int) -> None:
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
