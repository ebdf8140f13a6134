"""Exit statuses of the commands, listed once: `--help` prints them from here."""

from __future__ import annotations

EXIT_OK = 0
#: `run`: some case failed.
EXIT_TEST_FAILED = 1
#: Errors found (check), a configuration error (run), or the command could not run (bad
#: arguments, missing path, nothing to check, `--output` not writable): CI fails either way.
EXIT_FAILED = 2
#: `run`: the run cannot proceed (backend unreachable or failing every turn on connection
#: errors, unreadable cassette, a report that cannot be written).
EXIT_CANNOT_RUN = 3

CHECK_EXIT_CODES = (
    (EXIT_OK, "no errors (with --strict: no warnings either)"),
    (
        EXIT_FAILED,
        "errors found, or the check could not run (bad arguments, missing path, "
        "no agent files, --output not writable)",
    ),
)
RUN_EXIT_CODES = (
    (EXIT_OK, "every case passed"),
    (EXIT_TEST_FAILED, "some case failed"),
    (EXIT_FAILED, "configuration errors (printed as check prints them) or bad arguments"),
    (
        EXIT_CANNOT_RUN,
        "the run cannot proceed: backend unreachable (or every turn failed on "
        "connection errors), unreadable cassette, unwritable report",
    ),
)


def epilog(codes: tuple[tuple[int, str], ...], title: str = "exit status") -> str:
    return f"{title}:\n" + "\n".join(f"  {code}  {meaning}" for code, meaning in codes)
