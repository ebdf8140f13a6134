"""What the provider's weather cost one turn: how often its requests were refused and how long
they waited (at the endpoint's limiter, out a refusal's backoff, on the refused attempts
themselves), so that a turn stopped by the case's `llm_timeout` can tell the model's slowness
(upstream's failure) from the provider's refusals (errored, not measured).

The case runner opens a record around each send (`watching_turn`); the transport's retry loop
(transport.py) writes into the record of the context it runs in. A request outside a turn (a
judge's) writes into a record nobody reads.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

#: Share of the timeout a turn must have spent waiting on the provider for its timeout to be
#: the provider's: a short pace probe or one quick retry leaves the model nearly all its time,
#: and a turn that slow is still the model's llm_timeout.
PROVIDER_SHARE = 0.1


@dataclass(slots=True)
class TurnWeather:
    refusals: int = 0
    _waited: float = 0.0
    _waiting: int = 0  # waits under way (a turn's tool calls may run side by side)
    _since: float = 0.0

    def refused(self, seconds: float) -> None:
        """A request was refused (429, 5xx, dropped) after `seconds` of asking."""
        self.refusals += 1
        self._waited += seconds

    @contextlib.contextmanager
    def waiting(self) -> Iterator[None]:
        """Within the block the turn waits on the provider (overlapping waits count once)."""
        if self._waiting == 0:
            self._since = time.monotonic()
        self._waiting += 1
        try:
            yield
        finally:
            self._waiting -= 1
            if self._waiting == 0:
                self._waited += time.monotonic() - self._since

    def waited(self) -> float:
        """Seconds waited on the provider so far, a wait under way included."""
        ongoing = time.monotonic() - self._since if self._waiting else 0.0
        return self._waited + ongoing


_current: ContextVar[TurnWeather | None] = ContextVar("holodeck_turn_weather", default=None)


@contextlib.contextmanager
def watching_turn() -> Iterator[TurnWeather]:
    """Within the block (and the tasks it starts), requests report their weather here."""
    weather = TurnWeather()
    with reporting_to(weather):
        yield weather


@contextlib.contextmanager
def reporting_to(weather: TurnWeather | None) -> Iterator[TurnWeather | None]:
    """Within the block, requests report to `weather`, a turn's record kept elsewhere (the
    Claude relay's requests come from another process, not from the turn's task)."""
    token = _current.set(weather)
    try:
        yield weather
    finally:
        _current.reset(token)


def current_weather() -> TurnWeather:
    """The turn's record, or a throwaway one for a request outside a turn."""
    weather = _current.get()
    return weather if weather is not None else TurnWeather()


def watched_weather() -> TurnWeather | None:
    """The turn's record when a turn is being watched (for handing it to another task)."""
    return _current.get()


def provider_timeout(weather: TurnWeather, timeout: float) -> str | None:
    """Why a turn stopped by `llm_timeout` after `timeout` s was the provider's doing, or
    None when the model had (nearly) all of that time: then it is upstream's failure."""
    waited = weather.waited()
    if waited < PROVIDER_SHARE * timeout:
        return None
    refusals = weather.refusals
    refused = f"{refusals} provider refusal{'s' if refusals != 1 else ''}"
    return (
        f"timed out after {timeout:g}s, {waited:.1f}s of it waiting on the provider "
        f"({refused}, the rate limit): not the model's llm_timeout"
    )
