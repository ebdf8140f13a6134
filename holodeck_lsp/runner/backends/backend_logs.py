"""The SDKs' own log lines stay off the console unless asked for (docs/running.md, "Tool
loop").

Semantic Kernel logs every odd tool call at ERROR with a traceback ("Function failed. Error:
Parameter ticket_id is expected to be parsed to <class 'int'> …") although it has already
answered the model with an error result and the turn goes on; the call, and the error the
model got, are in the report. `run --verbose` shows them; a handler of the user's own (a log
file) gets them whatever the console shows.
"""

from __future__ import annotations

import logging

#: Loggers of the agent SDKs.
BACKEND_LOGGERS = ("semantic_kernel", "claude_agent_sdk")


class _BackendRecords(logging.Filter):
    """Drops the backends' records (the filter of a console handler)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not any(
            record.name == name or record.name.startswith(name + ".") for name in BACKEND_LOGGERS
        )


_FILTER = _BackendRecords()


def console_backend_logs(show: bool) -> None:
    """Show or hide the backends' log lines on the console handlers: the root's handlers that
    write to a terminal stream, and Python's last-resort handler (stderr when nothing else
    is configured)."""
    handlers: list[logging.Handler] = [
        handler
        for handler in logging.getLogger().handlers
        if type(handler) is logging.StreamHandler
    ]
    if logging.lastResort is not None:
        handlers.append(logging.lastResort)
    for handler in handlers:
        if show:
            handler.removeFilter(_FILTER)
        elif _FILTER not in handler.filters:
            handler.addFilter(_FILTER)
