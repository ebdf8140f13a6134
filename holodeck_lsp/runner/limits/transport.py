"""The HTTP transport every agent and judge request goes through: it waits for room at the
endpoint's limiter, retries what the provider's weather refused (408/409/429/5xx, a dropped
connection) within the turn's retry budget, waiting the server's hint or a jittered backoff,
and hands the last refusal (or connection error) to the caller when the budget is spent —
which the backend then reports as an errored turn.

Two HTTP libraries call it: httpx (the judges) and the httpx fork the installed openai client
is built on (`httpx2`); both have httpx's transport API, so `limited_transport(module, …)`
builds the transport for the module given.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from types import ModuleType
from typing import Any, Protocol

from holodeck_lsp.runner.limits import trace
from holodeck_lsp.runner.limits.backoff import (
    ANSWERING_CAP_SECONDS,
    CAP_SECONDS,
    backoff_delay,
    coarse_hint,
)
from holodeck_lsp.runner.limits.budget import current_budget
from holodeck_lsp.runner.limits.endpoint import EndpointLimiter
from holodeck_lsp.runner.limits.env_proxy import env_proxy_transport
from holodeck_lsp.runner.limits.headers import limit_reset, retry_after
from holodeck_lsp.runner.limits.headers import used_up as limit_used_up
from holodeck_lsp.runner.limits.registry import settings
from holodeck_lsp.runner.limits.weather import current_weather
from holodeck_lsp.runner.limits.window import Priority
from holodeck_lsp.runner.trace_hooks import http_call, traced_send

#: Seconds a request may spend waiting out the limit's short 429s (the pace's probe) before
#: they draw on the turn's retry budget like any other refusal.
LIMIT_ALLOWANCE_SECONDS = 10.0


class Release(Protocol):
    """Gives a held answer's place in the window back; `tokens` the answer used (`tpm`)."""

    def __call__(self, tokens: int = 0) -> None: ...


def provider_status(status: int) -> bool:
    """Statuses that say the provider could not answer now, not that the request was wrong."""
    return status in (408, 409, 429) or status >= 500


class Retrying:
    """The retry loop, independent of the HTTP library (`send` makes one attempt)."""

    def __init__(
        self,
        limiter: EndpointLimiter,
        retry_budget: int | None,
        transport_errors: tuple[type[BaseException], ...],
        rng: random.Random | None = None,
    ) -> None:
        self.limiter = limiter
        self._budget = retry_budget
        self._errors = transport_errors
        self._rng = rng or random.Random()
        self._sleep = asyncio.sleep  # a test's fake clock replaces it

    async def send(self, attempt_once: Any, request: Any) -> Any:
        response, _ = await self._send(attempt_once, request, hold=False)
        return response

    async def send_held(self, attempt_once: Any, request: Any) -> tuple[Any, Release]:
        """As `send`, but an answer that is not a refusal keeps its place in the window until
        `release` is called: a streamed (SSE) answer's headers come at once and its tokens
        for seconds after, and the window bounds requests being answered, not begun."""
        return await self._send(attempt_once, request, hold=True)

    async def _send(self, attempt_once: Any, request: Any, *, hold: bool) -> tuple[Any, Release]:
        budget = current_budget(
            self._budget if self._budget is not None else settings().retry_budget
        )
        limiter = self.limiter
        weather = current_weather()  # what the provider costs the turn (its llm_timeout)
        asked = time.monotonic()
        priority: Priority | None = None  # a first attempt; a retry goes first, oldest first
        hintless = 0  # consecutive failures without a hint (the backoff's exponent)
        allowance = LIMIT_ALLOWANCE_SECONDS  # waits after the limit's 429s, not the budget's
        refused_at: float | None = None
        attempt = 0
        while True:
            attempt += 1
            with weather.waiting():
                sent_at = await limiter.acquire(priority)
            if refused_at is not None:
                allowance -= sent_at - refused_at
                refused_at = None
            priority = (0, asked)
            try:
                response = await attempt_once(request)
            except self._errors:
                limiter.release("other", sent_at)
                weather.refused(time.monotonic() - sent_at)
                if not budget.take():
                    trace.note("request.gave_up", attempt)
                    raise
                hintless += 1
                with weather.waiting():
                    await self._wait(hintless, None, "drop")
                continue
            except BaseException:
                limiter.release("other", sent_at)
                raise
            status = int(response.status_code)
            if not provider_status(status):
                pause = limit_reset(response.headers)
                trace.note("request.retries", attempt - 1)
                trace.note("turn.budget_left", budget.remaining)
                if hold:
                    if pause:  # a limit used up: the others wait from now, not from the end
                        limiter.pause(pause)
                    return response, self._releaser(sent_at)
                tokens = await self._tokens_used(response)
                limiter.release("ok", sent_at, tokens=tokens, pause=pause)
                return response, _released
            weather.refused(time.monotonic() - sent_at)
            hint = retry_after(response.headers)
            free, short = self._refused(status, response.headers, hint, sent_at, allowance > 0)
            if hint is None:
                hintless += 1
            else:
                hintless = 0
            if not free and not budget.take():
                trace.note("request.gave_up", attempt)
                return response, _released  # the caller sees the provider's own refusal
            await response.aclose()
            if free:
                trace.note("budget.free_limit_429")
                # The allowance is spent from the refusal on — the backoff and the wait for
                # the next slot alike — so a limit that never answers costs a request at most
                # LIMIT_ALLOWANCE_SECONDS before its retries are the turn's budget again.
                refused_at = time.monotonic()
            cause = f"{status}" if hint is None else f"{status}-hint-{'short' if short else 'long'}"
            with weather.waiting():
                await self._wait(hintless, hint, cause)

    def _refused(
        self, status: int, headers: Any, hint: float | None, sent_at: float, allowed: bool
    ) -> tuple[bool, bool]:
        """A refused send (`status`): give back its place; for a 429, tell the limiter (the
        limit's or a refusal at random, an overrun) and say whether its retry is free of the
        turn's budget and whether its hint is short (the pace's next slot). `allowed`: the
        request has time left for free retries."""
        limiter = self.limiter
        if status != 429:
            limiter.release("other", sent_at)
            return False, False
        # This request waits the server's hint (`_wait`); the endpoint's other requests are
        # paced from now (pacing.py), and all of them wait only when the answer says a
        # limit is used up until a reset (`limit_reset`): a 429's Retry-After for one
        # request stopping all 64 would idle the run.
        used_up = limit_reset(headers)
        short = limiter.paced_refusal(hint)
        limit = limiter.is_limit(hint, used_up is not None or limit_used_up(headers))
        # A short wait for the pace's next slot is the pacing's own probe of the limit, not
        # the provider's weather, and so is the limit's 429 once the endpoint is paced or
        # its gate shut (the pace and the gate look for the limit): it spends time, not the
        # turn's budget.
        paced = limiter.pace.spacing > 0 or limiter.gate.blocked
        free = (short or (limit and paced)) and allowed
        if used_up is not None and not short and coarse_hint(used_up) and limiter.lone_refusal():
            # "Used up until a reset" a whole second away, among sends that were answered
            # (an edge's refusal, or one send early): this request waits it, the others go
            # on; were the limit used up, the next are refused too. A reset named exactly
            # is the limit's own word: every send waits it (endpoint.py `acquire`), or
            # each next one is refused — and a window that counts refusals stays full
            # (docs/benchmarks.md, "Sends held for an exact reset").
            used_up = None
        limiter.release("limited" if limit else "refused", sent_at, pause=used_up)
        if limit and not short and limiter.overloaded(sent_at):
            # Overrun: one probe at a time until the limit answers (a window that counts
            # refusals empties meanwhile), then send at what it let through (gate.py;
            # docs/running.md, "Long runs").
            trace.note("pause.overrun", hint or 0.0)
            limiter.overrun(hint, coarse=hint is not None and coarse_hint(hint))
        return free, short

    def _releaser(self, sent_at: float) -> Release:
        released = False

        def release(tokens: int = 0) -> None:
            nonlocal released
            if not released:  # once, however often the caller's cleanup calls it
                released = True
                self.limiter.release("ok", sent_at, tokens=tokens)

        return release

    async def _wait(self, attempt: int, hint: float | None, cause: str) -> None:
        counts = self.limiter.counts
        counts.retries += 1
        counts.waiting += 1
        # A passing fault while the endpoint answers others: a short ceiling.
        cap = ANSWERING_CAP_SECONDS if self.limiter.answering() else CAP_SECONDS
        delay = backoff_delay(attempt, hint, self._rng, cap=cap)
        trace.note(f"backoff.{cause}", delay)
        if hint is None:
            trace.note("backoff.hintless_attempt", attempt)
        try:
            await self._sleep(delay)
        finally:
            counts.waiting -= 1

    async def _tokens_used(self, response: Any) -> int:
        """Tokens a JSON answer reports (OpenAI `usage.total_tokens`, Anthropic input +
        output), for a `tpm` bucket only: reading the body here is not free."""
        if self.limiter.tokens is None:
            return 0
        if "json" not in response.headers.get("content-type", ""):
            return 0
        try:
            await response.aread()
            usage = json.loads(response.content).get("usage") or {}
        except Exception:  # an unreadable body is the caller's to report, not ours
            return 0
        if "total_tokens" in usage:
            return int(usage["total_tokens"] or 0)
        return int(usage.get("input_tokens") or 0) + int(usage.get("output_tokens") or 0)


def _released(tokens: int = 0) -> None:
    """The `Release` of an answer whose place was already given back."""


_classes: dict[str, type] = {}


def limited_transport(
    module: ModuleType,
    limiter: EndpointLimiter,
    *,
    retry_budget: int | None = None,
    inner: Any = None,
    rng: random.Random | None = None,
) -> Any:
    """An `AsyncBaseTransport` of `module` (httpx or httpx2) through `limiter`."""
    cls = _classes.get(module.__name__)
    if cls is None:
        cls = _classes[module.__name__] = _transport_class(module)
    # Built by hand, so httpx no longer reads the proxies of the environment: we do.
    return cls(limiter, inner or env_proxy_transport(module), retry_budget, rng)


def _transport_class(module: ModuleType) -> type:
    base: type = module.AsyncBaseTransport
    errors = (module.TransportError, OSError)

    class LimitedTransport(base):  # type: ignore[misc]
        def __init__(
            self,
            limiter: EndpointLimiter,
            inner: Any,
            retry_budget: int | None,
            rng: random.Random | None,
        ) -> None:
            self.limiter = limiter
            self._inner = inner
            self._retrying = Retrying(limiter, retry_budget, errors, rng)

        async def handle_async_request(self, request: Any) -> Any:
            call = http_call(request)  # None when the run is not traced
            if call is None:
                return await self._retrying.send(self._inner.handle_async_request, request)
            return await traced_send(
                call, self._retrying.send(self._inner.handle_async_request, request)
            )

        async def aclose(self) -> None:
            await self._inner.aclose()

    return LimitedTransport
