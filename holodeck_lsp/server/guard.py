"""One rule for every request handler: a bug in a feature is logged and answered with that
feature's empty answer (no lenses, no hover, …) — it never takes the server down and never
turns into a JSON-RPC error the editor shows as a pop-up.

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @answer_or(None, "hover")
    async def on_hover(params: types.HoverParams) -> types.Hover | None: ...

`answer_or(default)` takes the value itself for immutable answers (`None`) and a factory for
mutable ones (`list`), so two failed requests never share one list.

Two answers are not the handler's to give: params that cannot be read as the method's never
reach it — the request gets the JSON-RPC invalid-params error (`invalid_params.py`) — and a
cancelled request (`asyncio.CancelledError`, not an `Exception`) passes through, for pygls to
answer "request cancelled" (`request_work.py`).
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

log = logging.getLogger("holodeck_lsp.server")

_F = TypeVar("_F", bound=Callable[..., Any])


def answer_or(default: object, feature: str) -> Callable[[_F], _F]:
    """Wrap a handler (sync or async): an exception is logged with `feature` and the handler
    answers `default` (called first when it is a factory such as `list`)."""

    def empty() -> object:
        return default() if callable(default) else default

    def decorate(handler: _F) -> _F:
        if inspect.iscoroutinefunction(handler):

            @functools.wraps(handler)
            async def guarded_async(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await cast(Callable[..., Awaitable[Any]], handler)(*args, **kwargs)
                except Exception:
                    log.exception("%s failed", feature)
                    return empty()

            return cast(_F, guarded_async)

        @functools.wraps(handler)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            try:
                return handler(*args, **kwargs)
            except Exception:
                log.exception("%s failed", feature)
                return empty()

        return cast(_F, guarded)

    return decorate
