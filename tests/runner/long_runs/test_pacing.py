"""runner/limits/pacing.py: an endpoint's sends are paced once it answered 429, at the rate
it answered; random 429s do not compound into a crawl; answers let the rate creep back."""

from __future__ import annotations

import pytest

from holodeck_lsp.runner.limits import pacing
from holodeck_lsp.runner.limits.pacing import CEILING, Pace
from tests.runner.long_runs.fake_clock import Clock, hand_clock
from tests.runner.long_runs.fake_clock import answers_every as _answers


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return hand_clock(monkeypatch, pacing)


def test_unpaced_until_a_429_then_at_the_rate_answered(clock: Clock) -> None:
    pace = Pace()
    _answers(pace, clock, 20, 0.05)  # 20 answers a second
    assert pace.spacing == 0.0
    pace.limited()
    assert pace.spacing == pytest.approx(0.05, rel=0.01)


def test_random_429s_do_not_compound(clock: Clock) -> None:
    pace = Pace()
    _answers(pace, clock, 20, 0.05)
    for _ in range(30):  # a random 429 after every 9 answers, for a while
        _answers(pace, clock, 9, 0.05)
        pace.limited()
    assert pace.spacing <= 0.05 * 1.05  # still about the rate answered, not 1.05 ** 30 of it


def test_answers_let_the_rate_creep_back_and_unpace(clock: Clock) -> None:
    pace = Pace()
    _answers(pace, clock, 40, 0.05)  # two seconds: a measure, not a first estimate
    pace.limited()
    before = pace.spacing
    _answers(pace, clock, 10, 0.05)
    # 10 answers in 0.5 s: each narrows by PROBE, but half a second by at most half of
    # PROBE_PER_SECOND (a window limiter's burst of answers must not race the pace ahead).
    reach = before * (1 - pacing.PROBE_PER_SECOND * 0.5)
    assert pace.spacing == pytest.approx(max(before * (1 - pacing.PROBE) ** 10, reach))
    assert pace.spacing > before * (1 - pacing.PROBE) ** 10
    _answers(pace, clock, 400, 0.1)  # 40 s without a 429: unpaced again
    assert pace.spacing == 0.0


def test_nothing_answered_slows_by_half_up_to_the_ceiling(clock: Clock) -> None:
    pace = Pace()
    for _ in range(40):
        clock.now += 2.0  # past the cool-down each time
        pace.limited()
    assert pace.spacing == CEILING


async def test_sends_leave_one_by_one_at_the_spacing() -> None:
    import asyncio
    import time

    pace = Pace()
    pace.spacing = 0.02
    started = time.monotonic()
    sent: list[float] = []

    async def send() -> None:
        await pace.wait_turn()
        sent.append(time.monotonic() - started)

    await asyncio.gather(*(send() for _ in range(6)))
    # Each leaves a spacing after the previous one, not in a burst (a late wake-up pushes
    # the later ones back rather than bunching them: test_limits_retry_order.py).
    assert all(at >= number * 0.02 - 0.002 for number, at in enumerate(sent)), sent


def test_a_guessed_spacing_is_replaced_once_answers_measure_the_rate(clock: Clock) -> None:
    pace = Pace()
    pace.limited()  # the first 429, nothing answered yet: a guess
    guessed = pace.spacing
    assert guessed == pytest.approx(pacing.START_SPACING)
    _answers(pace, clock, pacing.MEASURED_AFTER, 0.05)  # 250 ms: within the cool-down
    pace.limited()
    assert pace.spacing == pytest.approx(0.05, rel=0.05)  # measured, not waited out
    # Measured now: the next 429 within the cool-down changes nothing.
    before = pace.spacing
    clock.now += 0.1
    pace.limited()
    assert pace.spacing == before
