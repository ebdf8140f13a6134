"""The one error of `import bfcl`: input that cannot be imported. No printing here; the
command prints the message, which names the file (and the record) and says what to do."""

from __future__ import annotations

__all__ = ["ImportInputError"]


class ImportInputError(Exception):
    """The benchmark's files cannot be imported; the message leads with the cause and the fix."""
