"""runner/limits/ after a second that measured too little (issue 36, docs/benchmarks.md "After
the pause is lifted"): a pause of whole seconds is lifted when a later send is answered, and
a measure under the rate the limit has delivered is taken for a diluted one."""

from __future__ import annotations

import asyncio
import time

import pytest

from holodeck_lsp.runner.limits import pacing
from holodeck_lsp.runner.limits.delivered import MIN_ANSWERS, DeliveredRate
from holodeck_lsp.runner.limits.endpoint import EndpointLimiter
from holodeck_lsp.runner.limits.pacing import Pace
from tests.runner.long_runs.fake_clock import Clock, hand_clock
from tests.runner.long_runs.fake_clock import answers_every as _answers


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return hand_clock(monkeypatch, pacing)


def test_the_best_second_is_remembered_until_forgotten() -> None:
    rate = DeliveredRate()
    for n in range(20):  # 20 answers within one second
        rate.answered(10.0 + n * 0.04)
    for n in range(5):  # then a slow second
        rate.answered(11.0 + n * 0.2)
    assert rate.best == 20
    assert rate.spacing == pytest.approx(1 / 20)
    rate.forget()
    assert rate.spacing == 0.0
    for n in range(MIN_ANSWERS - 1):  # too few answers in a second to say a rate
        rate.answered(20.0 + n * 0.1)
    assert rate.spacing == 0.0


def test_a_diluted_measure_does_not_widen_past_the_rate_delivered(clock: Clock) -> None:
    """Issue 36's bucket with `x-ratelimit-reset-requests`, seed 1: a first second of 20
    answers, then a second mostly idle (faults, a pause) measured 5 a second at the next 429,
    and the pace took that for the limit's rate."""
    pace = Pace()
    _answers(pace, clock, 20, 0.05)
    pace.limited()  # the first 429: an estimate from the interval
    _answers(pace, clock, 5, 0.2)  # a second of 5 answers
    pace.limited()  # measures 5 a second
    assert pace.spacing == pytest.approx(0.05 * (1 + pacing.OVERRUN_MARGIN))


def test_refused_at_the_rate_delivered_forgets_it(clock: Clock) -> None:
    """A fixed window lets twice its limit through in a second that straddles its boundary:
    a limit that refuses sends paced at the remembered rate says it was an overstatement."""
    pace = Pace()
    _answers(pace, clock, 40, 0.025)  # 40 in a second: a fixed window's straddle
    pace.limited()
    _answers(pace, clock, 20, 0.05)  # paced now; the limit delivers 20 a second
    pace.limited()
    assert pace.delivered.best == 40
    known = pace.known_spacing()
    clock.now += 1.0
    _answers(pace, clock, 20, 0.05)
    pace.spacing = known  # sent at the remembered rate, and refused
    pace.limited()
    assert pace.delivered.best == 0  # forgotten
    assert pace.spacing > known


def test_a_pause_of_whole_seconds_is_lifted_by_a_later_answer() -> None:
    limiter = EndpointLimiter("k")
    # A random refusal saying the limit is used up for a second (`reset: 1000ms`).
    limiter.release("limited", time.monotonic() - 0.01, pause=1.0)
    sent_at = time.monotonic()  # a send already past the pause's check leaves
    limiter.release("ok", sent_at)  # and is answered: the limit was not used up
    started = time.monotonic()
    sent = asyncio.run(asyncio.wait_for(limiter.acquire(), 0.5))
    assert sent - started < 0.2


def test_an_exact_reset_and_an_older_send_keep_the_pause() -> None:
    limiter = EndpointLimiter("k")
    before = time.monotonic() - 0.01
    limiter.release("limited", before, pause=1.0)
    limiter.release("ok", before)  # sent before the pause began: says nothing of it
    assert limiter._paused_until - time.monotonic() > 0.9
    exact = EndpointLimiter("k")
    exact.release("limited", before, pause=0.35)  # a reset named exactly: trusted
    exact.release("ok", time.monotonic())
    assert exact._paused_until - time.monotonic() > 0.3
