"""docs/grading.md and docs/checks.md carry one table of the deliberate differences from
upstream HoloDeck; it must be the same table in both."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEADING = "## Differences from upstream HoloDeck\n"


def table_of(doc: str) -> str:
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    assert text.count(HEADING) == 1, doc
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    return "\n".join(line for line in section.splitlines() if line.startswith("|"))


def test_both_docs_have_the_same_table_of_differences() -> None:
    grading = table_of("grading.md")
    assert grading == table_of("checks.md")
    # The "keep as they are" list is in it.
    for kept in (
        "empty answer",
        "never affect another case",
        "inclusive",
        "`1,5` is an error",
        "`--trust`",
        "Unset `${VAR}`",
    ):
        assert kept in grading, kept
