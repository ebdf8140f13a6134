"""Where `runner/execution/` used to keep the case-session protocol; it now lives beside the
backend protocol, in `runner/backends/case_sessions.py` (backends/ and execution/ then import
one way only, tests/test_folder_pairs.py).

Kept as a re-export only for `case_runner.py` and `executor.py`, whose imports move to the new
place with their rebuild of the run lifecycle (issue 38); delete this module then.
"""

from __future__ import annotations

from holodeck_lsp.runner.backends.case_sessions import (
    CANCELLED,
    CaseSessionFactory,
    describe_error,
    timeout_message,
)

__all__ = ["CANCELLED", "CaseSessionFactory", "describe_error", "timeout_message"]
