"""Percentiles of turn times (p50, p95): linear interpolation between the closest ranks, the
usual definition (numpy's default, Hyndman & Fan's type 7), so figures match other tools'."""

from __future__ import annotations

from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0 ≤ q ≤ 100) of `values`; None when there are none."""
    if not 0.0 <= q <= 100.0:
        raise ValueError("q is a percent: 0 to 100")
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    fraction = position - below
    return ordered[below] + (ordered[above] - ordered[below]) * fraction
