"""The Wilson score interval of a proportion: what every pass rate is shown with
(docs/reports.md, "Uncertainty").

Wilson rather than the textbook normal ("Wald") interval because suites are small and rates
sit near 0 % or 100 %: there Wald's interval collapses to a point (0 of 12 passed: [0, 0]) or
runs past the ends, while Wilson's stays inside [0, 1] and keeps close to its stated coverage
down to a handful of cases.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

#: The two-sided 95 % normal quantile.
Z95 = NormalDist().inv_cdf(0.975)


@dataclass(frozen=True, slots=True)
class Interval:
    """A closed interval [low, high] on the scale of the estimate (a fraction, not percent)."""

    low: float
    high: float

    def percent(self, digits: int = 1) -> str:
        """`[41.2, 63.0]`: percent points, as the reports print an interval."""
        return f"[{self.low * 100:.{digits}f}, {self.high * 100:.{digits}f}]"


def z_of(confidence: float) -> float:
    """The two-sided normal quantile of a confidence level (0.95 -> 1.96)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence is a fraction between 0 and 1, e.g. 0.95")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> Interval:
    """The Wilson score interval of `successes` of `trials`; [0, 1] when there are no trials
    (nothing measured says nothing)."""
    if successes < 0 or trials < 0 or successes > trials:
        raise ValueError("need 0 <= successes <= trials")
    if trials == 0:
        return Interval(0.0, 1.0)
    z = Z95 if confidence == 0.95 else z_of(confidence)
    z2 = z * z
    p = successes / trials
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    # At 0 or all successes the bound is exactly 0 or 1; rounding must not move it off.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return Interval(low, high)
