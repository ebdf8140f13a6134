"""Paired comparison of two runs on the same cases (docs/reports.md, "Paired comparison").

* The test: McNemar's exact test — of the cases where the runs disagree, how many went each
  way — which is the exact two-sided sign test (binomial, p = ½) on the discordant pairs. With
  repeats or several turns a case's two scores are fractions; a case then counts as "better"
  or "worse" by which score is higher, ties dropped: the same test on the same unit.
* The difference's interval: Newcombe's hybrid score interval for paired proportions (his
  method 10, 1998: the two Wilson intervals joined with the pairs' correlation φ) when each
  case is a single pass / fail. It stays inside [−1, 1] and keeps its coverage on small and
  lopsided suites, where the Wald interval does neither; a bootstrap would cost a resampling
  loop per comparison and a random seed per answer. For fractional scores (turns of a case,
  repeats) the interval is the normal one with the variance of a ratio estimator clustered by
  case: the turns of one case share a conversation, so they are not independent draws.
* How many cases would tell: Connor's (1987) sample size for McNemar's test at a 5 % level
  and 80 % power, from the discordant fraction and the difference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

from holodeck_lsp.engine.statistics.wilson import Z95, Interval, wilson_interval, z_of

#: Above this many discordant pairs the tail is summed in floating point (lgamma) rather than
#: in exact integers: the same p to ~12 digits, without million-bit integers.
_EXACT_LIMIT = 2000


def sign_test_p(better: int, worse: int) -> float:
    """McNemar's exact two-sided p: P(a split at least this uneven | no difference), i.e. the
    exact binomial test of `better` of `better + worse` against ½. 1.0 with no discordance."""
    if better < 0 or worse < 0:
        raise ValueError("counts are 0 or more")
    n = better + worse
    k = min(better, worse)
    if n == 0 or 2 * k == n:
        return 1.0
    tail = _exact_tail(n, k) if n <= _EXACT_LIMIT else _float_tail(n, k)
    return min(1.0, 2.0 * tail)


def _exact_tail(n: int, k: int) -> float:
    """P(X <= k) for X ~ Binomial(n, ½), summed in integers."""
    term = total = 1  # C(n, 0)
    for i in range(k):
        term = term * (n - i) // (i + 1)
        total += term
    return total / (1 << n)


def _float_tail(n: int, k: int) -> float:
    """P(X <= k) for X ~ Binomial(n, ½): log terms summed from the largest (the one at k)."""
    log_half_n = n * math.log(0.5)
    top = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + log_half_n
    total = 0.0
    log_term = top
    for i in range(k, -1, -1):
        ratio = math.exp(log_term - top)
        total += ratio
        if ratio < 1e-17:
            break
        # C(n, i-1) = C(n, i) * i / (n - i + 1)
        log_term += math.log(i) - math.log(n - i + 1) if i > 0 else 0.0
    return math.exp(top) * total


def newcombe_paired(
    both: int, only_base: int, only_head: int, neither: int, confidence: float = 0.95
) -> Interval:
    """The interval of (head's pass rate − base's) over paired cases, Newcombe's method 10.
    The four counts are the cells of the 2×2 table of (base passed, head passed)."""
    n = both + only_base + only_head + neither
    if n == 0:
        return Interval(-1.0, 1.0)
    base_passed, head_passed = both + only_base, both + only_head
    return newcombe_from_margins(
        head_passed, base_passed, n, _phi(both, only_base, only_head, neither), confidence
    )


def newcombe_from_margins(
    head_passed: int, base_passed: int, n: int, phi: float, confidence: float = 0.95
) -> Interval:
    """Newcombe's hybrid score interval from the two margins and their correlation φ
    (φ = 0 is his interval for two independent proportions)."""
    head, base = head_passed / n, base_passed / n
    head_ci = wilson_interval(head_passed, n, confidence)
    base_ci = wilson_interval(base_passed, n, confidence)
    d1, u1 = head - head_ci.low, head_ci.high - head
    d2, u2 = base - base_ci.low, base_ci.high - base
    diff = head - base
    low = diff - math.sqrt(max(0.0, d1 * d1 - 2 * phi * d1 * u2 + u2 * u2))
    high = diff + math.sqrt(max(0.0, u1 * u1 - 2 * phi * u1 * d2 + d2 * d2))
    return Interval(max(-1.0, low), min(1.0, high))


def _phi(both: int, only_base: int, only_head: int, neither: int) -> float:
    """The correlation of the two verdicts over the pairs; 0 when a margin is constant."""
    denominator = (
        (both + only_base) * (only_head + neither) * (both + only_head) * (only_base + neither)
    )
    if denominator == 0:
        return 0.0
    return (both * neither - only_base * only_head) / math.sqrt(denominator)


def clustered_difference(
    cases: Sequence[tuple[float, int]], confidence: float = 0.95
) -> tuple[float, Interval]:
    """The difference in turn pass rate, with its interval, from per-case (sum over the case's
    turns of head's pass fraction minus base's, number of turns). A ratio estimator whose
    variance is computed over cases (the cluster), not over turns."""
    turns = sum(m for _, m in cases)
    groups = len(cases)
    if turns == 0:
        return 0.0, Interval(-1.0, 1.0)
    diff = sum(d for d, _ in cases) / turns
    if groups < 2:
        return diff, Interval(-1.0, 1.0)
    spread = sum((d - diff * m) ** 2 for d, m in cases)
    se = math.sqrt(groups / (groups - 1) * spread) / turns
    z = Z95 if confidence == 0.95 else z_of(confidence)
    return diff, Interval(max(-1.0, diff - z * se), min(1.0, diff + z * se))


def cases_needed(
    discordant: float, difference: float, alpha: float = 0.05, power: float = 0.8
) -> int | None:
    """About how many paired cases McNemar's test needs to find `difference` (a fraction of
    cases, better minus worse) significant at `alpha` with `power`, when `discordant` of the
    cases disagree (Connor 1987). None when it cannot be said: no difference, or a difference
    larger than the disagreement allows."""
    difference = abs(difference)
    if difference <= 0 or discordant <= 0 or difference > discordant or discordant > 1:
        return None
    normal = NormalDist()
    z_alpha, z_beta = normal.inv_cdf(1 - alpha / 2), normal.inv_cdf(power)
    root = z_alpha * math.sqrt(discordant) + z_beta * math.sqrt(
        max(0.0, discordant - difference * difference)
    )
    return math.ceil(root * root / (difference * difference))
