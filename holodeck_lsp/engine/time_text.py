"""One format for a moment wherever holodeck-lsp shows one — `runs`, the shell completion's
descriptions, `compare`, the Markdown and HTML reports: `2026-12-06 03:42:00`, in the local
time zone, to the second. The stored forms (run.json, the JSON report) keep full ISO 8601."""

from __future__ import annotations

from datetime import datetime

SHOWN = "%Y-%m-%d %H:%M:%S"


def shown_time(value: str | datetime) -> str:
    """`value` (an ISO 8601 text or a datetime) as shown; a text that is not a time as it is."""
    if isinstance(value, datetime):
        moment = value
    else:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return value
    if moment.tzinfo is not None:
        moment = moment.astimezone()
    return moment.strftime(SHOWN)
