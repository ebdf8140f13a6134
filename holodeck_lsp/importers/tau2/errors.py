"""The one error of `import tau2`: the input cannot be imported (the message leads with cause
and fix)."""

from __future__ import annotations


class ImportInputError(Exception):
    """The checkout, or the selection, cannot be imported."""
