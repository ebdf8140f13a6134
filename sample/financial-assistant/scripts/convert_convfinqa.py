#!/usr/bin/env python3
"""Convert ConvFinQA dialogues into HoloDeck multi-turn test cases.

A thin wrapper of `holodeck-lsp import convfinqa` (holodeck_lsp/importers/convfinqa/), kept
for this sample's layout and options: it writes the same files the sample has always had,
byte for byte. For a new suite use the command: `holodeck-lsp import convfinqa FILE --out DIR`.

    python scripts/convert_convfinqa.py --split dev --n 10 \\
        --out data/convfinqa_subset.json --agent-yaml agent.yaml

`--source` is the ConvFinQA JSON file — the dataset's own release file (`dev.json` from the
ConvFinQA repository's `data.zip`) or the reformatted `{"dev": [...]}` form; without it the
script reads `$CONVFINQA_SOURCE`, and stops saying so when neither is given (docs/importing.md
says where to get the dataset).

Writes, deterministically (the same source gives the same bytes):

* `--out` — the subset: each chosen dialogue's ConvFinQA record (id, doc, dialogue, features)
  with the HoloDeck test case made from it, plus the dialogues passed over and why;
* `documents/<case>.txt` beside `--out` — each dialogue's page (text, table, text) as the
  agent receives it with the first question;
* `--agent-yaml` (optional) — the sample's agent.yaml: model, instructions, tools, metrics
  and the test cases.

Selection: dialogues in file order; a dialogue is passed over when a turn's answer is not a
number, its program does not parse, or the dataset's answer disagrees with what its own
program computes (beyond the sample's numeric tolerance) — a test that no correct agent could
pass teaches nothing. The first `--n` that remain are taken; `--n all` takes every one that
remains (the whole split that qualifies), and prints how many were passed over for each kind
of reason.

Mapping of one turn:

* `input` <- `conv_questions[i]`; `ground_truth` <- `conv_answers[i]` (graded by the agent's
  `numeric` metric, `accept_percent: true`, with a tolerance that accepts the dataset's
  rounding: `142.4%` vs 1.42403);
* `expected_tools` <- the steps of `turn_program[i]` this turn adds (steps repeated from an
  earlier turn's program were already asked for there): the operation's name, a `fuzzy`
  matcher for a number written in the program, an exact (literal) matcher for a `const_`, and
  nothing for `#N` (the agent's own earlier result, which it may round; the code grader checks
  it within tolerance). Operands are pinned in the program's order. A turn whose program is a
  bare value found in exactly one table cell expects a `lookup` of that cell (`document_id`
  exact, `row` / `column` by case-insensitive `regex`);
* `turn_config.turn_program` <- `turn_program[i]`, for `graders:turn_program_equivalence`;
* the first turn carries the page as a text file.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from pathlib import Path

from holodeck_lsp.importers.convfinqa.cases import (
    DOCUMENTS_FOLDER,
    case_name,
    expected_tools_for,
    name_pattern,
    to_test_case,
)
from holodeck_lsp.importers.convfinqa.documents import render_document
from holodeck_lsp.importers.convfinqa.language import parse_program
from holodeck_lsp.importers.convfinqa.records import BadSource
from holodeck_lsp.importers.convfinqa.selection import (
    Selection,
    reason_tally,
    select,
    why_unusable,
)
from holodeck_lsp.importers.convfinqa.suite import convert

# What the tests (tests/sample/test_converter.py) reach through this script.
__all__ = [
    "Selection",
    "case_name",
    "expected_tools_for",
    "main",
    "name_pattern",
    "parse_program",
    "reason_tally",
    "render_document",
    "select",
    "to_test_case",
    "why_unusable",
]

#: The sample's own wording of where its files come from (the command writes its own).
GENERATED_BY = "scripts/convert_convfinqa.py from data/convfinqa_subset.json (see README.md)"
SELECTION_NOTE = (
    "the first n dialogues in file order whose answers are numbers that "
    "agree with their own programs (see scripts/convert_convfinqa.py)"
)


def default_source() -> Path | None:
    """$CONVFINQA_SOURCE, if set: never a guess at where some machine keeps the dataset."""
    explicit = os.environ.get("CONVFINQA_SOURCE")
    return Path(explicit) if explicit else None


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


def _count(text: str) -> int | None:
    """`--n`: a positive number, or `all` (None: no limit)."""
    if text.strip().lower() == "all":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'all', not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1 (or 'all')")
    return value


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--source",
        type=Path,
        help="ConvFinQA JSON file: the release's dev.json or the reformatted form "
        "(default: $CONVFINQA_SOURCE)",
    )
    parser.add_argument("--split", default="dev", help="top-level key of the source (dev)")
    parser.add_argument(
        "--n",
        type=_count,
        default=10,
        help="dialogues to take (10), or 'all': every dialogue of the split that qualifies",
    )
    parser.add_argument("--out", type=Path, required=True, help="the subset JSON to write")
    parser.add_argument("--agent-yaml", type=Path, help="also write the agent file here")
    args = parser.parse_args(None if argv is None else list(argv))
    if args.source is None:
        args.source = default_source()
        if args.source is None:
            parser.error(
                "no ConvFinQA file given: pass --source FILE or set CONVFINQA_SOURCE (the "
                "dataset's dev.json, from data.zip of github.com/czyssrs/ConvFinQA; see "
                "docs/importing.md)"
            )

    try:
        conversion = convert(
            args.source,
            args.split,
            args.n,
            generated_by=GENERATED_BY,
            selection_note=SELECTION_NOTE,
        )
    except BadSource as error:
        raise SystemExit(f"error: {error}") from None
    selection = conversion.selection
    if args.n is not None and len(selection.chosen) < args.n:
        print(
            f"warning: only {len(selection.chosen)} usable dialogues in {args.source}",
            file=sys.stderr,
        )
    write(args.out, conversion.subset)
    for name, text in conversion.documents.items():
        write(args.out.parent / DOCUMENTS_FOLDER / name, text)
    if args.agent_yaml is not None:
        write(args.agent_yaml, conversion.agent)
    count = len(selection.chosen)
    print(f"wrote {count} dialogues ({conversion.turns} turns) to {args.out}", file=sys.stderr)
    for skipped in selection.passed_over:
        print(f"  passed over {skipped['id']}: {skipped['reason']}", file=sys.stderr)
    if selection.passed_over:
        tally = ", ".join(f"{n} {kind}" for kind, n in reason_tally(selection.passed_over))
        print(f"passed over {len(selection.passed_over)}: {tally}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
