"""Tool arguments and results as reports and cassettes can store them."""

from __future__ import annotations

import json
from typing import Any


def json_safe(value: Any) -> Any:
    """`value` itself when it survives JSON, else its text (an object a tool returned)."""
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value
