"""An explicit limit as a token bucket: `rpm` (requests a minute) or `tpm` (tokens a minute)
from `holodeck-lsp.yaml`. A request waits until the bucket holds what it needs; tokens are
charged when the answer says how many were used, so the bucket may go below zero and the next
requests wait for the debt to refill."""

from __future__ import annotations

import asyncio
import time


class Bucket:
    def __init__(self, per_minute: float) -> None:
        self.rate = per_minute / 60.0
        # A full minute's burst would let 64 cases start at once into a limit: a second's worth.
        self.capacity = max(1.0, self.rate)
        self.level = self.capacity
        self._at = time.monotonic()
        self._lock = asyncio.Lock()

    def _refill(self) -> None:
        now = time.monotonic()
        self.level = min(self.capacity, self.level + (now - self._at) * self.rate)
        self._at = now

    async def take(self, amount: float = 1.0) -> float:
        """Wait until `amount` is available and take it; returns the seconds waited."""
        waited = 0.0
        async with self._lock:  # FIFO: the first waiter is served first
            self._refill()
            need = min(amount, self.capacity)
            while self.level < need:
                pause = (need - self.level) / self.rate
                await asyncio.sleep(pause)
                waited += pause
                self._refill()
            self.level -= amount
        return waited

    def charge(self, amount: float) -> None:
        """Take `amount` after the fact (tokens an answer reported)."""
        self._refill()
        self.level -= amount
