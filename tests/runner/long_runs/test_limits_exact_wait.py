"""runner/limits/ tells a window limiter from a token bucket by the wait it names exactly
(issue 36, docs/benchmarks.md "A window's exact wait tells it from a bucket"): a probe gate
whose first probe waited a `Retry-After` the limit named exactly opens at that probe,
window or bucket alike; a wait many times the interval the limit answered at is a
window's (a bucket refilling a slot each interval has one free within it), so the pace is
the window's worth, not the interval within its burst."""

from __future__ import annotations

import pytest

from holodeck_lsp.runner.limits import endpoint, gate, pacing
from holodeck_lsp.runner.limits.endpoint import EndpointLimiter
from tests.runner.long_runs.fake_clock import Clock, hand_clock
from tests.runner.long_runs.limiter_drive import send_all
from tests.runner.long_runs.test_limits_probe_gate import LimitedServer


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return hand_clock(monkeypatch, pacing, endpoint, gate)


def _answers(limiter: EndpointLimiter, clock: Clock, count: int, every: float) -> None:
    for _ in range(count):
        clock.now += every
        limiter.window.in_flight = 1
        limiter.release("ok", clock.now - 0.001)


def _probe_answered(limiter: EndpointLimiter, clock: Clock, named: float) -> None:
    """The gate shut on a 429 naming `named` seconds exactly; the probe sent then is
    answered (the gate opens at its first probe)."""
    limiter.overrun(named, coarse=False)
    assert limiter.gate.blocked
    clock.now += named
    sent_at = clock.now
    clock.now += 0.01
    limiter.window.in_flight = 1
    limiter.release("ok", sent_at)
    assert not limiter.gate.blocked


def test_a_windows_long_exact_wait_sets_the_pace_to_its_worth(clock: Clock) -> None:
    limiter = EndpointLimiter("k")
    limiter.pace.spacing = 0.001
    _answers(limiter, clock, 20, 0.003)  # a window of 20 let through at the send rate
    clock.now += 0.05
    _probe_answered(limiter, clock, 0.9)  # "Retry-After: 0.900": the window's oldest
    # Before: taken for a bucket, paced at the interval within the burst (3 ms), and the
    # window was overrun again at once.
    assert limiter.pace.spacing == pytest.approx(1.0 / 20 * (1 + pacing.OVERRUN_MARGIN))


def test_a_buckets_short_exact_wait_keeps_its_interval(clock: Clock) -> None:
    limiter = EndpointLimiter("k")
    limiter.pace.spacing = 0.04
    _answers(limiter, clock, 12, 0.05)  # a token bucket of 20 a second, overrun
    clock.now += 0.02
    _probe_answered(limiter, clock, 0.04)  # its next token, named exactly
    assert limiter.pace.spacing == pytest.approx(0.05)


@pytest.mark.slow
async def test_a_sliding_window_naming_its_waits_is_overrun_once() -> None:
    """80 requests, 32 at a time, against a sliding window of 20 a second that counts
    refusals and names its next free slot exactly (`Retry-After: 0.912`). Before, each
    gate opened at its first probe set a bucket's pace, and the window was overrun again:
    the gate shut 2-4 times here."""
    server = LimitedServer("sliding", "exact")
    limiter = EndpointLimiter("k")
    shut = 0
    block = limiter.gate.block

    def counted_block(first_probe_in: float, gap: float) -> None:
        nonlocal shut
        shut += not limiter.gate.blocked
        block(first_probe_in, gap)

    limiter.gate.block = counted_block  # type: ignore[method-assign]
    await send_all(limiter, server.attempt)
    assert shut == 1, (shut, server.refused, server.requests)
    assert server.refused / server.requests < 0.3, (server.refused, server.requests)


def test_one_answer_measures_no_interval_and_leaves_the_pace(clock: Clock) -> None:
    limiter = EndpointLimiter("k")
    limiter.pace.spacing = 0.04
    _answers(limiter, clock, 1, 0.05)  # a bucket's burst of one, then refusals
    clock.now += 0.02
    _probe_answered(limiter, clock, 0.04)
    assert limiter.pace.spacing <= 0.04  # not a window of one a second (1.1 s)
