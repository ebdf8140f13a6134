"""A copy of the sample whose first case takes a while to grade, for the tests that cancel a
run from an editor: a code grader that marks when it starts (`grading.started` beside it) and
then waits — until the test drops `grading.release` beside it (which the grader takes away
again, so that each release lets one turn through), or at most the seconds it is given —,
added to every turn of case 0 (graded turn by turn: without the release the case runs for
its number of turns times those seconds, or more). Released once the cancel is answered, the
turn being graded ends at once instead of sleeping out a fixed time, and a turn the cancel
failed to skip would still hold the run for the whole wait."""

from __future__ import annotations

from pathlib import Path

MARK = "grading.started"
RELEASE = "grading.release"


def slow_grader(seconds: float) -> str:
    return f"""import time
from pathlib import Path


def slow(context):
    here = Path(__file__)
    here.with_name("{MARK}").touch()
    release = here.with_name("{RELEASE}")
    deadline = time.monotonic() + {seconds}
    while not release.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    release.unlink(missing_ok=True)
    return True
"""


def with_slow_grader(agent: Path, seconds: float) -> int:
    """`slow_grader.py` beside the copied sample `agent` (each grading waits for RELEASE, at
    most `seconds`), and its grader on every turn of the first case; the number of turns it
    grades."""
    (agent.parent / "slow_grader.py").write_text(slow_grader(seconds), encoding="utf-8")
    lines = agent.read_text(encoding="utf-8").splitlines(keepends=True)
    cases = lines.index("test_cases:\n")
    first = next(i for i in range(cases, len(lines)) if lines[i].startswith("  - name:"))
    end = next(i for i in range(first + 1, len(lines)) if lines[i].startswith("  - name:"))
    grader = (
        '        evaluations:\n          - type: code\n            grader: "slow_grader:slow"\n'
    )
    graded = [i for i in range(first, end) if lines[i].startswith("        ground_truth:")]
    for i in reversed(graded):
        lines.insert(i + 1, grader)
    agent.write_text("".join(lines), encoding="utf-8")
    return len(graded)
