"""A monotonic clock the limiter tests move by hand: runner/limits/ reads `time.monotonic`
of its own modules, which `hand_clock` points at one `Clock`."""

from __future__ import annotations

from types import ModuleType

import pytest

from holodeck_lsp.runner.limits.pacing import Pace


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def hand_clock(monkeypatch: pytest.MonkeyPatch, *modules: ModuleType) -> Clock:
    """One `Clock` as the `time.monotonic` of each of `modules` (e.g. `pacing`)."""
    found = Clock()
    for module in modules:
        monkeypatch.setattr(module.time, "monotonic", found)
    return found


def answers_every(pace: Pace, clock: Clock, count: int, every: float) -> None:
    """`count` answers to `pace`, `every` seconds apart on `clock`."""
    for _ in range(count):
        clock.now += every
        pace.answered()
