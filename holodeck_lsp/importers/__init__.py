"""Importers: a public benchmark's files in, a HoloDeck test suite out (docs/importing.md).

No printing here: every problem with the input is an `ImportInputError` whose message names the
file (and the record) and says what to do; `commands/import_suite.py` prints it.
"""

from __future__ import annotations

__all__ = ["ImportInputError"]


class ImportInputError(Exception):
    """The benchmark's files cannot be imported; the message leads with the cause and the fix."""
