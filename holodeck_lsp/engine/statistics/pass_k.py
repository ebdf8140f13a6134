"""pass@k and pass^k over `--repeat N` (docs/reports.md, "pass@k and pass^k").

With n sessions of a case and c of them passing, the unbiased estimates are

* pass^k = C(c, k) / C(n, k): the chance that all of k sessions drawn without replacement
  from the n pass — τ²-bench's pass^k, "does the agent succeed *every* time";
* pass@k = 1 − C(n − c, k) / C(n, k): the chance that at least one of k passes.

A suite's figure is the mean over its cases. k runs from 1 to n; pass^1 = pass@1 = c / n.
"""

from __future__ import annotations

from collections.abc import Iterable
from math import comb


def pass_hat_k(passed: int, runs: int, k: int) -> float:
    """pass^k of one case: all k of k sessions pass."""
    _check(passed, runs, k)
    return comb(passed, k) / comb(runs, k)


def pass_at_k(passed: int, runs: int, k: int) -> float:
    """pass@k of one case: at least one of k sessions passes."""
    _check(passed, runs, k)
    return 1.0 - comb(runs - passed, k) / comb(runs, k)


def suite_pass_hat_k(cases: Iterable[tuple[int, int]], k: int) -> float | None:
    """The mean pass^k over (passed, runs) per case; None without a case of k runs or more."""
    values = [pass_hat_k(c, n, k) for c, n in cases if n >= k]
    return sum(values) / len(values) if values else None


def suite_pass_at_k(cases: Iterable[tuple[int, int]], k: int) -> float | None:
    """The mean pass@k over (passed, runs) per case; None without a case of k runs or more."""
    values = [pass_at_k(c, n, k) for c, n in cases if n >= k]
    return sum(values) / len(values) if values else None


def _check(passed: int, runs: int, k: int) -> None:
    if not 0 <= passed <= runs:
        raise ValueError("need 0 <= passed <= runs")
    if not 1 <= k <= runs:
        raise ValueError("need 1 <= k <= runs")
