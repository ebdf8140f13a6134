#!/usr/bin/env python3
"""Convert ConvFinQA dialogues into HoloDeck multi-turn test cases.

    python scripts/convert_convfinqa.py --split dev --n 10 \\
        --out data/convfinqa_subset.json --agent-yaml agent.yaml

`--source` is the ConvFinQA JSON file; without it the script looks for
`$CONVFINQA_SOURCE`, then `shared/data/convfinqa/convfinqa_dataset_dev.json` beside the
repository or any folder above it, then the workspace's `/work/shared`.

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
import json
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SAMPLE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SAMPLE_DIR))

from convfinqa import (  # noqa: E402  (the sample folder is not a package)
    Program,
    cells_holding,
    parse_number,
    parse_program,
    program_answer,
    resolve,
    table_rows,
)

#: The agent-level `numeric` metric; `select` keeps only dialogues it can grade fairly.
ABSOLUTE_TOLERANCE = 0.005
RELATIVE_TOLERANCE = 0.001

DOCUMENTS_FOLDER = "documents"


# ----------------------------------------------------------------------------- selection


def _agrees(answer: float, computed: float) -> bool:
    difference = abs(answer - computed)
    return difference <= ABSOLUTE_TOLERANCE or difference <= RELATIVE_TOLERANCE * abs(answer)


def why_unusable(record: Mapping[str, Any]) -> str | None:
    """Why a dialogue cannot become a fair test case, or None when it can."""
    dialogue = record["dialogue"]
    turns = zip(
        dialogue["conv_questions"], dialogue["conv_answers"], dialogue["turn_program"], strict=True
    )
    for index, (_question, answer, source) in enumerate(turns):
        try:
            expected = parse_number(answer)
        except ValueError:
            return f"turn {index}: the answer {answer!r} is not a number"
        try:
            computed = program_answer(parse_program(source))
        except (ValueError, ZeroDivisionError) as error:
            return f"turn {index}: the program {source!r} cannot be evaluated: {error}"
        if isinstance(computed, str) or not _agrees(expected, computed):
            return (
                f"turn {index}: the dataset's answer {answer!r} disagrees with its program "
                f"{source!r} = {computed!r}"
            )
    return None


@dataclass(frozen=True)
class Selection:
    chosen: list[Mapping[str, Any]]
    passed_over: list[dict[str, str]]


def select(records: Sequence[Mapping[str, Any]], count: int | None) -> Selection:
    """The first `count` usable records in file order (None: every usable one); the records
    looked at and refused are kept with their reasons."""
    chosen: list[Mapping[str, Any]] = []
    passed_over: list[dict[str, str]] = []
    for record in records:
        if len(chosen) == count:
            break
        reason = why_unusable(record)
        if reason is None:
            chosen.append(record)
        else:
            passed_over.append({"id": record["id"], "reason": reason})
    return Selection(chosen, passed_over)


# ----------------------------------------------------------------------------- conversion


def case_name(record_id: str) -> str:
    """`Single_MRO/2007/page_134.pdf-1` -> `single-mro-2007-page-134-pdf-1`."""
    return re.sub(r"[^a-z0-9]+", "-", record_id.lower()).strip("-")


def name_pattern(name: str) -> str:
    """A case-insensitive regex that matches a table name however its spaces are written."""
    words = [re.escape(word) for word in name.split()]
    return r"(?i)\s*" + r"\s+".join(words) + r"\s*"


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def _operand_key(value: float) -> float:
    return round(value, 6)


def expected_tools_for(
    record: Mapping[str, Any], program: Program, earlier: set[tuple[Any, ...]]
) -> list[Any]:
    """The turn's tool expectations (see the module doc); `earlier` holds the steps earlier
    turns asked for and is extended with this turn's."""
    if not program.steps:
        assert program.bare_value is not None
        cells = cells_holding(record["doc"]["table"], program.bare_value)
        if len(cells) != 1:
            return []  # the value is in the text, or in several cells
        row, column = cells[0]
        return [
            {
                "name": "lookup",
                "args": {
                    "document_id": record["id"],
                    "row": {"regex": name_pattern(row)},
                    "column": {"regex": name_pattern(column)},
                },
            }
        ]
    expected: list[Any] = []
    results = program.values()
    for step in program.steps:
        a, b = (resolve(operand, results) for operand in step.operands)
        key = (step.operation, _operand_key(a), _operand_key(b))
        if key in earlier:
            continue
        earlier.add(key)
        args: dict[str, Any] = {}
        for name, operand, value in zip(("a", "b"), step.operands, (a, b), strict=True):
            if operand.kind == "literal":
                args[name] = {"fuzzy": _number_text(value)}
            elif operand.kind == "const":
                args[name] = int(value) if value.is_integer() else value
        expected.append({"name": step.operation, "args": args} if args else step.operation)
    return expected


def document_path(record: Mapping[str, Any]) -> str:
    """Where the page lives, relative to the agent's folder."""
    return f"data/{DOCUMENTS_FOLDER}/{case_name(record['id'])}.txt"


def to_test_case(record: Mapping[str, Any]) -> dict[str, Any]:
    dialogue = record["dialogue"]
    turns: list[dict[str, Any]] = []
    earlier: set[tuple[Any, ...]] = set()
    entries = zip(
        dialogue["conv_questions"], dialogue["conv_answers"], dialogue["turn_program"], strict=True
    )
    for index, (question, answer, source) in enumerate(entries):
        turn: dict[str, Any] = {"input": question, "ground_truth": answer}
        if index == 0:
            turn["files"] = [
                {
                    "path": document_path(record),
                    "type": "text",
                    "description": "the annual-report page this conversation is about",
                }
            ]
        tools = expected_tools_for(record, parse_program(source), earlier)
        if tools:
            turn["expected_tools"] = tools
        turn["turn_config"] = {"turn_program": source}
        turns.append(turn)
    return {"name": case_name(record["id"]), "turns": turns}


# ----------------------------------------------------------------------------- documents


def _cell_text(value: object) -> str:
    if isinstance(value, float):
        return _number_text(value)
    return "" if value is None else str(value)


def render_document(record: Mapping[str, Any]) -> str:
    """The page as the agent reads it: id, text before the table, the table, text after."""
    doc = record["doc"]
    table: Mapping[str, Mapping[str, object]] = doc["table"]
    columns = list(table)
    lines = [
        f"Document id: {record['id']}",
        "One page of a company's annual report (ConvFinQA). Read table values with "
        "lookup(document_id, row, column), using the names exactly as the table prints them.",
        "",
        "## Text before the table",
        "",
        doc["pre_text"].strip(),
        "",
        "## Table",
        "",
        "| row | " + " | ".join(columns) + " |",
        "|" + "---|" * (len(columns) + 1),
    ]
    for row in table_rows(table):
        cells = [_cell_text(table[column].get(row)) for column in columns]
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    lines += ["", "## Text after the table", "", doc["post_text"].strip(), ""]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- agent.yaml


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is a subset of YAML's)."""
    return json.dumps(text, ensure_ascii=False)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _number_text(float(value)) if isinstance(value, float) else str(value)
    return _q(str(value))


def _arg_yaml(name: str, value: Any, indent: str) -> list[str]:
    if isinstance(value, dict):  # a matcher: {fuzzy: ...} or {regex: ...}
        ((kind, pattern),) = value.items()
        return [f"{indent}{name}:", f"{indent}  {kind}: {_q(pattern)}"]
    return [f"{indent}{name}: {_scalar(value)}"]


def case_yaml(case: Mapping[str, Any], record_id: str) -> list[str]:
    lines = [f"  - name: {_q(case['name'])}", f"    # ConvFinQA dev {record_id}", "    turns:"]
    for turn in case["turns"]:
        lines.append(f"      - input: {_q(turn['input'])}")
        lines.append(f"        ground_truth: {_q(turn['ground_truth'])}")
        for file in turn.get("files", []):
            lines.append("        files:")
            lines.append(f"          - path: {_q(file['path'])}")
            lines.append(f"            type: {file['type']}")
            lines.append(f"            description: {_q(file['description'])}")
        if turn.get("expected_tools"):
            lines.append("        expected_tools:")
            for tool in turn["expected_tools"]:
                if isinstance(tool, str):
                    lines.append(f"          - {tool}")
                    continue
                lines.append(f"          - name: {tool['name']}")
                lines.append("            args:")
                for arg, value in tool["args"].items():
                    lines += _arg_yaml(arg, value, " " * 14)
        lines.append("        turn_config:")
        lines.append(f"          turn_program: {_q(turn['turn_config']['turn_program'])}")
    return lines


AGENT_HEADER = """\
# Financial assistant: {count} ConvFinQA dialogues ({turns} turns) as HoloDeck multi-turn tests.
# Generated by scripts/convert_convfinqa.py from data/convfinqa_subset.json (see README.md);
# regenerate rather than edit the test cases by hand.
name: "financial-assistant"
description: >-
  Answers conversational questions about one annual-report page with lookup and calculator
  tools (ConvFinQA dev split).

# The backend. Ollama by default; to switch, replace this line with one of the two below it
# and set the key it needs (README.md, "Run against a real model").
model: {{provider: ollama, name: "qwen2.5:7b", temperature: 0}}
# model: {{provider: openai, name: "gpt-4o-mini", temperature: 0}}
# model: {{provider: anthropic, name: "claude-sonnet-4-5", temperature: 0}}

instructions:
  inline: |
    You are a financial analyst. Each conversation is about one page of a company's annual
    report. The page comes with the first question as a text file that starts with its
    document id, followed by the text before the table, the table and the text after it.

    - Read every table value with the lookup tool (document_id, row, column), using the row
      and column names exactly as the table prints them. Figures that appear only in the text
      you may take from the text.
    - Do every calculation with the arithmetic tools (add, subtract, multiply, divide, exp,
      greater), one operation per call, passing earlier results on as plain numbers. Never
      calculate in your head.
    - Later questions build on earlier ones ("that change", "the difference"): reuse the
      numbers the conversation already has instead of looking them up again.
    - Reply with the number only: no words, units or thousands separators. Give a percentage
      with a trailing % sign (14.2%); otherwise a plain decimal number.

tools:
  - name: lookup
    type: function
    description: "Read one value from the page's table, by document id, row name and column name."
    file: tools.py
    function: lookup
  - name: add
    type: function
    description: "a + b"
    file: tools.py
    function: add
  - name: subtract
    type: function
    description: "a - b"
    file: tools.py
    function: subtract
  - name: multiply
    type: function
    description: "a * b"
    file: tools.py
    function: multiply
  - name: divide
    type: function
    description: "a / b"
    file: tools.py
    function: divide
  - name: exp
    type: function
    description: "a raised to the power b"
    file: tools.py
    function: exp
  - name: greater
    type: function
    description: "yes if a > b, else no"
    file: tools.py
    function: greater

evaluations:
  metrics:
    # Every turn's answer against the dataset's, as numbers. The dataset rounds its answers
    # (142.4% for 1.42403, 11% for 0.10745); these tolerances accept that rounding.
    - type: standard
      metric: numeric
      accept_percent: true
      absolute_tolerance: {absolute}
      relative_tolerance: {relative}
    # Every turn's tool calls against its ConvFinQA program (graders.py): all steps must match.
    - type: code
      grader: "graders:turn_program_equivalence"
      threshold: 1.0
    # Every turn's answer judged by an LLM against plain-language criteria (G-Eval). The
    # judge is the agent's own model: no `model:` here nor in `evaluations:`.
    - type: geval
      name: Direct
      criteria: "The answer states the number without hedging: no words, ranges or caveats."

test_cases:
"""


def agent_yaml(dialogues: Sequence[Mapping[str, Any]]) -> str:
    turns = sum(len(d["test_case"]["turns"]) for d in dialogues)
    header = AGENT_HEADER.format(
        count=len(dialogues),
        turns=turns,
        absolute=ABSOLUTE_TOLERANCE,
        relative=RELATIVE_TOLERANCE,
    )
    lines: list[str] = []
    for dialogue in dialogues:
        lines += case_yaml(dialogue["test_case"], dialogue["id"])
    return header + "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- CLI


def load_split(source: Path, split: str) -> list[Mapping[str, Any]]:
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        message = f"error: {source}: no such file (pass the ConvFinQA JSON with --source)"
        raise SystemExit(message) from None
    except json.JSONDecodeError as error:
        raise SystemExit(f"error: {source}: not JSON: {error}") from None
    if not isinstance(data, dict) or split not in data:
        splits = ", ".join(data) if isinstance(data, dict) else "none (not a JSON object)"
        raise SystemExit(f"error: {source} has no {split!r} split; it has: {splits}")
    records: list[Mapping[str, Any]] = data[split]
    return records


def subset_json(source: Path, split: str, count: int | None, selection: Selection) -> str:
    dialogues = [
        {
            "id": record["id"],
            "document": document_path(record),
            "doc": record["doc"],
            "dialogue": record["dialogue"],
            "features": record["features"],
            "test_case": to_test_case(record),
        }
        for record in selection.chosen
    ]
    subset = {
        "source": source.name,
        "split": split,
        "n": "all" if count is None else count,
        "selection": "the first n dialogues in file order whose answers are numbers that "
        "agree with their own programs (see scripts/convert_convfinqa.py)",
        "passed_over": selection.passed_over,
        "dialogues": dialogues,
    }
    return json.dumps(subset, indent=2, ensure_ascii=False) + "\n"


_SHARED_DEV = Path("shared") / "data" / "convfinqa" / "convfinqa_dataset_dev.json"


def default_source() -> Path | None:
    """$CONVFINQA_SOURCE, else the shared folder's dev split beside the repository (or any
    folder above it: a clone may sit deeper than the workspace), else /work/shared's."""
    explicit = os.environ.get("CONVFINQA_SOURCE")
    if explicit:
        return Path(explicit)
    here = Path(__file__).resolve()
    for folder in here.parents:
        if (folder / _SHARED_DEV).is_file():
            return folder / _SHARED_DEV
    fallback = Path("/work") / _SHARED_DEV
    return fallback if fallback.is_file() else None


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
        help="ConvFinQA JSON file (default: $CONVFINQA_SOURCE or the shared folder's dev split)",
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
                "no ConvFinQA file found: pass --source FILE or set CONVFINQA_SOURCE "
                f"(looked for {_SHARED_DEV} beside the repository and the folders above it)"
            )

    selection = select(load_split(args.source, args.split), args.n)
    if args.n is not None and len(selection.chosen) < args.n:
        print(
            f"warning: only {len(selection.chosen)} usable dialogues in {args.source}",
            file=sys.stderr,
        )
    subset = subset_json(args.source, args.split, args.n, selection)
    write(args.out, subset)
    for record in selection.chosen:
        write(
            args.out.parent / DOCUMENTS_FOLDER / f"{case_name(record['id'])}.txt",
            render_document(record),
        )
    dialogues = json.loads(subset)["dialogues"]
    if args.agent_yaml is not None:
        write(args.agent_yaml, agent_yaml(dialogues))
    turns = sum(len(d["test_case"]["turns"]) for d in dialogues)
    print(f"wrote {len(dialogues)} dialogues ({turns} turns) to {args.out}", file=sys.stderr)
    for skipped in selection.passed_over:
        print(f"  passed over {skipped['id']}: {skipped['reason']}", file=sys.stderr)
    if selection.passed_over:
        tally = ", ".join(f"{n} {kind}" for kind, n in reason_tally(selection.passed_over))
        print(f"passed over {len(selection.passed_over)}: {tally}", file=sys.stderr)
    return 0


#: The kinds of reason `why_unusable` gives, by a phrase of its message.
_REASON_KINDS = (
    ("is not a number", "answer not a number"),
    ("cannot be evaluated", "program cannot be evaluated"),
    ("disagrees with its program", "answer disagrees with its program"),
)


def reason_tally(passed_over: Sequence[Mapping[str, str]]) -> list[tuple[str, int]]:
    """How many dialogues were passed over for each kind of reason, most first."""
    counts: dict[str, int] = {}
    for skipped in passed_over:
        kind = next((k for phrase, k in _REASON_KINDS if phrase in skipped["reason"]), "other")
        counts[kind] = counts.get(kind, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


if __name__ == "__main__":
    raise SystemExit(main())
