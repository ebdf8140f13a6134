"""The bridge between the server's loop and a run's own thread (server/runs/worker_thread.py):
real threads and real event loops."""

from __future__ import annotations

import asyncio
import threading

import pytest

from holodeck_lsp.server import threads
from holodeck_lsp.server.runs.worker_thread import RunHandle, ServerSink, in_own_thread


async def test_a_cancel_before_attach_reaches_the_run() -> None:
    handle = RunHandle()
    handle.cancel()  # the user cancelled while the run was still starting
    assert handle.cancel_requested

    async def run() -> bool:
        event = asyncio.Event()
        handle.attach(asyncio.get_running_loop(), event)
        return event.is_set()

    assert await in_own_thread(run, handle.cancel) is True


async def test_a_cancel_after_attach_wakes_the_run_in_its_thread() -> None:
    handle = RunHandle()
    attached = threading.Event()

    async def run() -> str:
        event = asyncio.Event()
        handle.attach(asyncio.get_running_loop(), event)
        attached.set()
        await asyncio.wait_for(event.wait(), timeout=10)
        return threading.current_thread().name

    future = in_own_thread(run, handle.cancel)
    await asyncio.to_thread(attached.wait, 10)
    assert not handle.cancel_requested
    handle.cancel()  # from the server's loop, another thread than the run's
    assert await future == "holodeck-run"


async def test_without_cancel_the_event_stays_clear() -> None:
    handle = RunHandle()

    async def run() -> bool:
        event = asyncio.Event()
        handle.attach(asyncio.get_running_loop(), event)
        await asyncio.sleep(0.01)
        return event.is_set()

    assert await in_own_thread(run, handle.cancel) is False


async def test_in_own_thread_hands_an_error_to_the_awaiting_side() -> None:
    handle = RunHandle()

    async def run() -> None:
        raise ValueError("the run broke")

    with pytest.raises(ValueError, match="the run broke"):
        await in_own_thread(run, handle.cancel)


async def test_in_own_thread_runs_off_the_servers_loop() -> None:
    server_thread = threading.get_ident()
    handle = RunHandle()

    async def run() -> tuple[int, bool]:
        return threading.get_ident(), threading.current_thread().daemon

    ident, daemon = await in_own_thread(run, handle.cancel)
    assert ident != server_thread
    assert daemon  # a run still going never keeps the server process alive


async def test_settle_stops_a_run_and_waits_for_its_thread() -> None:
    """At exit the server cancels a run still going and waits for its thread, so the
    interpreter never finalises under it (server/threads.py)."""
    handle = RunHandle()
    attached = threading.Event()

    async def run() -> str:
        event = asyncio.Event()
        handle.attach(asyncio.get_running_loop(), event)
        attached.set()
        await asyncio.wait_for(event.wait(), timeout=30)
        return "stopped"

    future = in_own_thread(run, handle.cancel)
    await asyncio.to_thread(attached.wait, 10)
    left = await asyncio.to_thread(threads.settle, 10.0)
    assert handle.cancel_requested
    assert "holodeck-run" not in left
    assert await future == "stopped"


async def test_server_sink_calls_back_on_the_servers_loop() -> None:
    seen: list[tuple[str, object, object, int]] = []
    done = asyncio.Event()

    def on_turn(case: object, turn: object) -> None:
        seen.append(("turn", case, turn, threading.get_ident()))

    def on_case(case: object, result: object) -> None:
        seen.append(("case", case, result, threading.get_ident()))
        done.set()

    sink = ServerSink(asyncio.get_running_loop(), on_turn, on_case)  # type: ignore[arg-type]
    handle = RunHandle()

    async def run() -> None:
        sink.case_started("c")  # type: ignore[arg-type]
        sink.turn_finished("c", "t0")  # type: ignore[arg-type]
        sink.case_finished("c", "r")  # type: ignore[arg-type]

    await in_own_thread(run, handle.cancel)
    await asyncio.wait_for(done.wait(), timeout=10)
    here = threading.get_ident()
    assert seen == [("turn", "c", "t0", here), ("case", "c", "r", here)]
