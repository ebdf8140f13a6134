"""runner/limits/: what a long run's tail is made of (issue 25's benchmark, docs/running.md
"Long runs") — the backoff's exponent counts only a request's consecutive hint-less failures
and is capped while the endpoint answers; the limit's short 429s spend time, not the turn's
budget; a random 429 (long Retry-After) is not the limit; only 2xx answers measure the rate;
the window does not narrow once paced; the pace lets sends go from their actual time, never
bunched; retries go before first attempts."""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from dataclasses import dataclass, field

import httpx

from holodeck_lsp.runner.limits.backoff import ANSWERING_CAP_SECONDS, backoff_delay
from holodeck_lsp.runner.limits.budget import turn_budget
from holodeck_lsp.runner.limits.endpoint import EndpointLimiter
from holodeck_lsp.runner.limits.pacing import Pace
from holodeck_lsp.runner.limits.transport import Retrying
from holodeck_lsp.runner.limits.window import Window


class Top(random.Random):
    """Every jitter draw at its top: the backoff's ceiling, exactly."""

    def random(self) -> float:
        return 1.0


@dataclass
class Script:
    """Answers in order: an int status (with `Retry-After` from `hints`) or "drop"."""

    steps: list[tuple[int | str, float | None]]
    sent: int = 0
    slept: list[float] = field(default_factory=list)

    async def attempt(self, request: object) -> httpx.Response:
        status, hint = self.steps[self.sent]
        self.sent += 1
        if status == "drop":
            raise httpx.ConnectError("dropped")
        headers = {} if hint is None else {"Retry-After": str(hint)}
        assert isinstance(status, int)
        return httpx.Response(status, headers=headers)

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)


def _retrying(limiter: EndpointLimiter, script: Script, budget: int = 8) -> Retrying:
    retrying = Retrying(limiter, budget, (httpx.TransportError,), Top())
    retrying._sleep = script.sleep
    return retrying


async def test_the_backoff_exponent_counts_only_consecutive_hintless_failures() -> None:
    limiter = EndpointLimiter("k")
    # Three of the limit's short 429s, then a 503 and a drop: their backoffs are the first
    # and second of their run (0.5 s, 1 s), not the fourth and fifth retry's (4 s, 8 s).
    script = Script([(429, 0.01)] * 3 + [(503, None), ("drop", None), (200, None)])
    response = await _retrying(limiter, script).send(script.attempt, None)
    assert response.status_code == 200
    assert script.slept[3:] == [0.5, 1.0]


async def test_a_hintless_backoff_is_capped_while_the_endpoint_answers() -> None:
    limiter = EndpointLimiter("k")
    limiter.release("ok", time.monotonic())  # someone was answered just now
    limiter.window.in_flight = 0
    script = Script([(503, None)] * 6 + [(200, None)])
    await _retrying(limiter, script).send(script.attempt, None)
    assert max(script.slept) == ANSWERING_CAP_SECONDS
    assert backoff_delay(6, None, Top()) == 16.0  # nothing answering: the long ceiling


async def test_the_limits_short_429s_spend_time_not_the_turns_budget() -> None:
    limiter = EndpointLimiter("k")
    script = Script([(429, 0.01)] * 12 + [(200, None)])
    with turn_budget(2) as budget:
        response = await _retrying(limiter, script, budget=2).send(script.attempt, None)
    assert response.status_code == 200 and budget.remaining == 2
    # A random 429 (Retry-After 1 s while the endpoint answers at 20 a second) is weather:
    # it spends the budget like a 503.
    limiter.pace.spacing = 0.05
    limiter._outcomes.clear()  # a second later: the 12 refusals above are not this one's
    limiter.release("ok", time.monotonic())
    limiter.window.in_flight = 0
    script = Script([(429, 1.0), (503, None), (200, None)])
    with turn_budget(2) as budget:
        await _retrying(limiter, script, budget=2).send(script.attempt, None)
    assert budget.remaining == 0


def test_a_random_429_is_not_the_limit() -> None:
    limiter = EndpointLimiter("k")
    assert limiter.is_limit(1.0, used_up=False)  # not paced yet: every 429 starts the pace
    limiter.pace.spacing = 0.05
    limiter.release("ok", time.monotonic())
    limiter.window.in_flight = 0
    assert limiter.is_limit(0.04, used_up=False)  # the next slot: the limit
    assert limiter.is_limit(None, used_up=False)
    assert limiter.is_limit(1.0, used_up=True)  # `x-ratelimit-remaining-*: 0`
    assert not limiter.is_limit(1.0, used_up=False)  # answering others: at random
    limiter._answered_at -= 2.0  # nothing answered for longer than it asks: the limit
    assert limiter.is_limit(1.0, used_up=False)
    # A random refusal leaves the pace and the window alone.
    spacing, size = limiter.pace.spacing, limiter.window.size
    limiter.window.in_flight = 1
    limiter.release("refused", time.monotonic())
    assert (limiter.pace.spacing, limiter.window.size) == (spacing, size)
    assert limiter.counts.limited == 1


def test_only_2xx_answers_measure_the_rate_and_a_paced_429_keeps_the_window() -> None:
    limiter = EndpointLimiter("k")
    limiter.pace.spacing = 0.05
    size = limiter.window.size
    for outcome in ("other", "other", "limited", "limited"):  # 503s, drops, the limit
        limiter.window.in_flight = 1
        limiter.release(outcome, time.monotonic())
    assert len(limiter.pace._answers) == 0
    assert limiter.window.size == size  # paced: the pace governs the rate


async def test_the_pace_spaces_from_the_actual_send_and_never_bunches() -> None:
    pace = Pace()
    pace.spacing = 0.02
    sent: list[float] = []

    async def send(number: int) -> None:
        await pace.wait_turn()
        sent.append(time.monotonic())
        if number == 1:
            time.sleep(0.06)  # the event loop starved past two slots

    await asyncio.gather(*(send(n) for n in range(5)))
    gaps = [b - a for a, b in itertools.pairwise(sent)]
    # Booked slots would leave the two overdue sends together after the stall.
    assert min(gaps) >= 0.019, gaps


async def test_retries_go_first_oldest_first_in_the_window_and_the_pace() -> None:
    window = Window(ceiling=1, start=1)
    await window.acquire()
    order: list[str] = []

    async def wait(name: str, priority: tuple[int, float] | None) -> None:
        await window.acquire(priority)
        order.append(name)
        window.release("ok")

    tasks = [asyncio.ensure_future(wait("first-a", None))]
    await asyncio.sleep(0)
    tasks.append(asyncio.ensure_future(wait("retry-new", (0, 20.0))))
    tasks.append(asyncio.ensure_future(wait("retry-old", (0, 10.0))))
    await asyncio.sleep(0)
    window.release("ok")
    await asyncio.gather(*tasks)
    assert order == ["retry-old", "retry-new", "first-a"]

    pace = Pace()
    pace.spacing = 0.01
    await pace.wait_turn()  # the previous send: the others wait their turn
    order.clear()

    async def turn(name: str, priority: tuple[int, float] | None) -> None:
        await pace.wait_turn(priority)
        order.append(name)

    await asyncio.gather(turn("first", None), turn("retry", (0, 5.0)))
    assert order == ["retry", "first"]


def test_paced_the_window_grows_back_as_in_slow_start() -> None:
    limiter = EndpointLimiter("k")
    limiter.window.in_flight = 1
    limiter.release("limited", time.monotonic())  # the first 429: halved, paced from now
    narrowed = limiter.window.size
    assert limiter.pace.spacing > 0 and narrowed < 4
    for _ in range(6):
        limiter.window.in_flight = 1
        limiter.release("ok", time.monotonic())
    # +1 an answer, not 1/window: the pace bounds the rate, the window must not idle it.
    assert limiter.window.size >= narrowed + 5


async def test_a_fault_gives_its_turn_back_unless_another_send_left_since() -> None:
    pace = Pace()
    pace.spacing = 0.15
    await pace.wait_turn()  # long ago
    pace._last -= 1.0
    await pace.wait_turn()
    faulted = time.monotonic()
    pace.unused(faulted)  # a 503: it used no slot of the limit
    started = time.monotonic()
    await pace.wait_turn()  # goes now, not 150 ms later
    assert time.monotonic() - started < 0.1
    later = time.monotonic()
    pace.unused(faulted)  # a send has left since: nothing to give back
    assert pace._last >= later - 0.001 and pace._last + pace.spacing > time.monotonic()
