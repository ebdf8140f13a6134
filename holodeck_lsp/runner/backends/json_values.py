"""Tool arguments and results as reports and cassettes store them.

One conversion for both, so a live run and the replay of its cassette hand the graders the
same values: a tuple becomes a list, an object JSON cannot carry becomes its text where it
sits (a dict holding a `datetime` stays a dict), and a value JSON cannot represent at all (a
cycle, non-string keys such as tuples) becomes its text as a whole instead of failing the run.
"""

from __future__ import annotations

import json
from typing import Any


def json_safe(value: Any) -> Any:
    """`value` as it reads back from JSON, unknown objects replaced by their `str()`."""
    try:
        return json.loads(json.dumps(value, default=str))
    except (TypeError, ValueError, RecursionError):
        return str(value)
