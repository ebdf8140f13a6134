"""The server's garbage collection policy: off while busy, a full collection when quiet."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from holodeck_lsp.server.idle_gc import IdleCollector


@pytest.fixture
def collector() -> Iterator[IdleCollector]:
    was_enabled = gc.isenabled()
    collector = IdleCollector(idle_s=0.05, max_interval_s=0.3)
    collector.start()
    try:
        yield collector
    finally:
        if was_enabled:
            gc.enable()


def _cycle() -> None:
    node: dict[str, object] = {}
    node["self"] = node  # only the cyclic collector frees this


@pytest.mark.slow
async def test_collects_once_activity_pauses(collector: IdleCollector) -> None:
    assert not gc.isenabled()
    for _ in range(5):  # a burst of typing: each change postpones the collection
        collector.activity()
        await asyncio.sleep(0.01)
    assert collector.collections == 0
    _cycle()
    await asyncio.sleep(0.1)
    assert collector.collections == 1
    assert gc.collect() == 0  # the cycle was already collected


async def test_long_bursts_still_collect(collector: IdleCollector) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 0.5
    while loop.time() < deadline:  # never quiet for 50 ms
        collector.activity()
        await asyncio.sleep(0.02)
    assert collector.collections >= 1
