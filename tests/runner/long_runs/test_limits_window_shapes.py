"""runner/limits/ against window limiters (issue 36): the rate is measured over whole spans
(a window's burst is not the limit's rate; an overrun's probe gate:
test_limits_probe_gate.py), a few 429s among many answers do not slow the pace, a burst of
answers does not race the pace ahead; and the fakes' limiter shapes behave as their names
say (tests/fakes/limiter_shapes.py)."""

from __future__ import annotations

import pytest

from holodeck_lsp.runner.limits import endpoint, pacing
from holodeck_lsp.runner.limits.endpoint import EndpointLimiter
from holodeck_lsp.runner.limits.pacing import Pace
from tests.fakes.limiter_shapes import LimiterShape, RecoverableFaults, refusal_headers
from tests.runner.long_runs.fake_clock import Clock, hand_clock
from tests.runner.long_runs.fake_clock import answers_every as _burst


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return hand_clock(monkeypatch, pacing, endpoint)


def test_a_measure_counts_answers_over_the_span_gaps_included(clock: Clock) -> None:
    pace = Pace()
    for _ in range(3):  # three seconds of a fixed window: 20 at once, then refusals
        _burst(pace, clock, 20, 0.002)
        clock.now += 1.0 - 20 * 0.002
    pace.limited()  # first pacing: measured over the last MEASURE_SPAN seconds
    assert pace.spacing == pytest.approx(1.0 / 20, rel=0.05)


def test_a_burst_of_answers_does_not_race_the_pace_ahead(clock: Clock) -> None:
    pace = Pace()
    _burst(pace, clock, 40, 0.05)
    pace.limited()
    before = pace.spacing
    _burst(pace, clock, 20, 0.001)  # 20 answers in 20 ms
    assert pace.spacing >= before * (1 - pacing.PROBE_PER_SECOND * 0.02) - 1e-9


def test_a_few_429s_among_many_answers_do_not_slow_the_pace(clock: Clock) -> None:
    limiter = EndpointLimiter("k")
    limiter.pace.spacing = 0.05
    for n in range(40):
        clock.now += 0.05
        limiter.release("ok" if n % 10 else "limited", clock.now - 0.01)
        limiter.window.in_flight = 1
    assert limiter.refused_share() < endpoint.LIMIT_REFUSED_SHARE
    assert limiter.pace.spacing <= 0.05  # never widened by the random ones


def test_many_429s_say_a_long_hint_is_the_limit(clock: Clock) -> None:
    limiter = EndpointLimiter("k")
    limiter.pace.spacing = 0.05
    limiter._answered_at = clock.now
    assert not limiter.is_limit(1.0, used_up=False)  # alone: at random
    for n in range(12):
        clock.now += 0.02
        limiter.release("ok" if n % 2 else "refused", clock.now - 0.01)
        limiter.window.in_flight = 1
    limiter._answered_at = clock.now
    assert limiter.refused_share() >= endpoint.LIMIT_REFUSED_SHARE
    assert limiter.is_limit(1.0, used_up=False)
    assert limiter.overloaded(clock.now)
    limiter.overrun(1.0, coarse=True)
    assert not limiter.overloaded(clock.now - 0.001)  # sent before the pause: one overrun


def test_the_sliding_window_counts_refused_requests() -> None:
    limit = LimiterShape("sliding", limit=2, window=1.0)
    assert limit.admit(0.0) is None and limit.admit(0.1) is None
    # Refused, and counted: the window holds 0.0, 0.1, 0.5; room once 0.1 leaves, at 1.1.
    assert limit.admit(0.5) == pytest.approx(0.6)
    assert limit.admit(1.05) is not None  # 0.1 and 0.5 are still in the window
    assert limit.admit(1.55) is None  # only 1.05 (the refused one) is left in it


def test_the_fixed_window_forgets_at_its_boundary_and_the_bucket_refills() -> None:
    fixed = LimiterShape("fixed", limit=2, window=1.0)
    assert fixed.admit(0.2) is None and fixed.admit(0.3) is None
    assert fixed.admit(0.9) == pytest.approx(0.1)
    assert fixed.admit(1.0) is None
    bucket = LimiterShape("bucket", limit=10, window=1.0)
    assert bucket.admit(0.0) is None
    assert bucket.admit(0.05) == pytest.approx(0.05)
    assert bucket.admit(0.1) is None


def test_header_styles_and_faults_at_most_two_in_a_row() -> None:
    assert refusal_headers("fixed", 0.2)["Retry-After"] == "1"
    assert refusal_headers("reset", 0.2) == {
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": "200ms",
    }
    assert refusal_headers("none", 0.2) == {}
    faults = RecoverableFaults(1.0)  # every draw a fault, but never three in a row
    assert [faults.draw("a") is not None for _ in range(6)] == [True, True, False] * 2
