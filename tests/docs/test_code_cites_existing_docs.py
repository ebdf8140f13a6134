"""Comments and docstrings in holodeck_lsp/ cite documents this repository has: every
`docs/….md` file named exists, every `#anchor` after it is one of that page's headings, every
quoted section after it (`docs/running.md, "Tool loop"`, or `("Tool loop")`) begins one of
its headings, and no file cites a specification the repository does not hold (FR-008,
SC-006, research-032 §2, contract-….md)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "holodeck_lsp"

#: Ids and names of the upstream specification, which is not in this repository.
SPEC_CITATION = re.compile(
    r"\b(?:FR|SC)-\d{3}[a-z]?\b|\b(?:research|data-model|spec)-\d{3}\b|\bcontract-[\w-]+\.md|§"
)
#: A docs page, then an optional `#anchor` or `, "Section"`. A section may wrap onto the next
#: line of a comment or docstring, or sit in the next string literal (`… (docs/x.md, "`
#: then `'"Section")…'`).
DOCS_CITATION = re.compile(
    r"(?<![\w/.-])(docs/[\w/.-]+?\.md)(?:#([\w-]+)|(?:,|\s*\()\s*(?:\"\s*\n\s*')?\"([^\"]+)\")?"
)


def _python_files() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "suite_files" not in p.parts)


@cache
def _headings(page: Path) -> tuple[str, ...]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    return tuple(m.group(1).strip() for m in re.finditer(r"^#{1,6}\s+(.+)$", text, re.M))


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def _plain(heading: str) -> str:
    return heading.replace("`", "").casefold()


def _section_text(raw: str) -> str:
    """A quoted section as read: line breaks, comment marks and indentation are one space."""
    return re.sub(r"\s*\n\s*(?:#:?\s*)?", " ", raw).strip()


def citation_problems(source: str) -> list[str]:
    problems = [f"cites the spec: {m.group(0)!r}" for m in SPEC_CITATION.finditer(source)]
    for match in DOCS_CITATION.finditer(source):
        name, anchor, section = match.groups()
        page = ROOT / name
        if not page.is_file():
            problems.append(f"cites {name}, which does not exist")
        elif anchor is not None and anchor not in {_slug(h) for h in _headings(page)}:
            problems.append(f"cites {name}#{anchor}, which is no heading of {name}")
        elif section is not None:
            wanted = _plain(_section_text(section))
            if not any(_plain(h).startswith(wanted) for h in _headings(page)):
                problems.append(f'cites {name}, "{section}", which begins no heading of {name}')
    return problems


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("# spec FR-008", "cites the spec: 'FR-008'"),
        ('"""(research-032 §5)"""', "cites the spec: 'research-032'"),
        ("# see contract-tool-arg-matchers.md", "cites the spec: 'contract-tool-arg-matchers.md'"),
        ("# docs/nowhere.md", "cites docs/nowhere.md, which does not exist"),
        ("# docs/grading.md#no-such-part", "cites docs/grading.md#no-such-part, which is no"),
        ('# (docs/running.md, "No such\n# part")', 'cites docs/running.md, "No such\n# part"'),
        ('# as docs/running.md ("No such part")', 'cites docs/running.md, "No such part"'),
    ],
)
def test_a_bad_citation_is_found(source: str, problem: str) -> None:
    assert any(p.startswith(problem) for p in citation_problems(source)), citation_problems(source)


@pytest.mark.parametrize(
    "source",
    [
        "# docs/grading.md#roll-up",
        '# (docs/running.md, "Tool\n# loop")',
        '(docs/running.md, "\n        \'"Tool loop"): …\'',
        "# docs/grading.md#how-a-matcher-is-written",
    ],
)
def test_a_good_citation_passes(source: str) -> None:
    assert citation_problems(source) == []


def test_product_code_cites_only_documents_that_exist() -> None:
    problems = [
        f"{path.relative_to(ROOT)}: {problem}"
        for path in _python_files()
        for problem in citation_problems(path.read_text(encoding="utf-8"))
    ]
    assert problems == [], "\n".join(problems)
