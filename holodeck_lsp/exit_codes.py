"""Exit statuses of every command, listed once: `--help` prints them from here, and each
command returns these names (never a bare number). The meaning of a number is the same in
every command: 1 is "the suite says no" (a failed case, a regression), 2 is "your input is
wrong" (errors found, bad arguments, an unreadable report), 3 is "the tool cannot do its job"
(a backend unreachable, an output that cannot be written by run / report / runs), 4 is "not
measured" (`run`: no case failed, but the provider kept some turns from being answered)."""

from __future__ import annotations

EXIT_OK = 0
#: `run`: some case failed.
EXIT_TEST_FAILED = 1
#: `compare`, and `run --baseline`: some turn regressed.
EXIT_REGRESSED = 1
#: Errors found (check), a configuration error (run), or bad input: bad arguments, a missing
#: path, nothing to check, a file that is not a report, an unknown stored run.
EXIT_BAD_INPUT = 2
#: The run cannot proceed (backend unreachable or failing every turn on connection errors,
#: unreadable cassette), or report / runs cannot write their output.
EXIT_CANNOT_RUN = 3
#: `run`: no case failed, but some case errored (429 after the retry budget, 5xx, connection
#: lost), or a budget (`--max-cost`, `--max-turns`) stopped the run before every case started:
#: the suite was not fully measured. A failed case wins (1).
EXIT_ERRORED = 4

Codes = tuple[tuple[int, str], ...]

CHECK_EXIT_CODES: Codes = (
    (EXIT_OK, "no errors (with --strict: no warnings either)"),
    (
        EXIT_BAD_INPUT,
        "errors found, or the check could not run (bad arguments, missing path, "
        "no agent files, --output not writable)",
    ),
)
RUN_EXIT_CODES: Codes = (
    (EXIT_OK, "every case passed"),
    (EXIT_TEST_FAILED, "some case failed (with --baseline: some turn regressed)"),
    (EXIT_BAD_INPUT, "configuration errors (printed as check prints them) or bad arguments"),
    (
        EXIT_CANNOT_RUN,
        "the run cannot proceed: backend unreachable (or every turn failed on "
        "connection errors), unreadable cassette, unwritable report",
    ),
    (
        EXIT_ERRORED,
        "no case failed, but some errored: the provider could not answer (429 after the "
        "retry budget, 5xx, connection lost), a simulated user failed, or Ctrl-C / "
        "--max-cost / --max-turns stopped the run before every case finished (not run): not "
        "measured, run them again",
    ),
)
COMPARE_EXIT_CODES: Codes = (
    (EXIT_OK, "no turn regressed (or --allow-regressions); a flaky turn is not a regression"),
    (
        EXIT_REGRESSED,
        "some turn regressed: passed (or passed more often) in BASE, fails in HEAD; with "
        "--gate significant: HEAD is significantly worse (paired test, p < 0.05)",
    ),
    (
        EXIT_BAD_INPUT,
        "bad arguments, an unreadable side, nothing to compare, --output not writable, or "
        "(--strict-simulator) the simulated users differ",
    ),
)
REPORT_EXIT_CODES: Codes = (
    (EXIT_OK, "written"),
    (EXIT_BAD_INPUT, "bad arguments, an unknown run, or a file that is not a JSON report"),
    (EXIT_CANNOT_RUN, "the output cannot be written"),
)
RUNS_EXIT_CODES: Codes = (
    (EXIT_OK, "done"),
    (EXIT_BAD_INPUT, "bad arguments or an unknown run"),
    (EXIT_CANNOT_RUN, "the history cannot be written"),
)
MERGE_EXIT_CODES: Codes = (
    (EXIT_OK, "merged (and stored, unless --no-save)"),
    (
        EXIT_BAD_INPUT,
        "bad arguments, an unknown run, a file that is not a report, or parts that are not "
        "one run's shards (another agent file, other repeats, a case in two parts)",
    ),
    (EXIT_CANNOT_RUN, "the merged run or --report-json cannot be written"),
)
IMPORT_EXIT_CODES: Codes = (
    (EXIT_OK, "the suite was written"),
    (
        EXIT_BAD_INPUT,
        "bad arguments, an unknown dataset, or a source that cannot be read (the file, "
        "the record and what is wrong are named)",
    ),
    (EXIT_CANNOT_RUN, "the output folder cannot be written"),
)


def epilog(codes: Codes, title: str = "exit status") -> str:
    return f"{title}:\n" + "\n".join(f"  {code}  {meaning}" for code, meaning in codes)
