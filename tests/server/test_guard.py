"""server/guard.py: a failing handler is logged and answers its feature's empty answer."""

from __future__ import annotations

import asyncio
import logging

import pytest

from holodeck_lsp.server.guard import answer_or


def test_sync_handler_failure_answers_default_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    @answer_or(None, "hover")
    def handler(value: int) -> int | None:
        raise RuntimeError(f"boom {value}")

    with caplog.at_level(logging.ERROR):
        assert handler(3) is None
    assert "hover failed" in caplog.text
    assert "boom 3" in caplog.text


def test_factory_default_is_fresh_per_failure() -> None:
    @answer_or(list, "codeLens")
    def handler() -> list[int]:
        raise ValueError

    first, second = handler(), handler()
    assert first == [] and second == []
    assert first is not second


def test_async_handler_stays_a_coroutine_function() -> None:
    @answer_or(list, "inlayHint")
    async def handler(fail: bool) -> list[str]:
        if fail:
            raise KeyError("x")
        return ["ok"]

    assert asyncio.iscoroutinefunction(handler)
    assert asyncio.run(handler(False)) == ["ok"]
    assert asyncio.run(handler(True)) == []
    assert handler.__name__ == "handler"
