"""A ConvFinQA split as a HoloDeck suite, in memory: the subset JSON (each chosen record whole,
with its test case, and the records passed over), each dialogue's page, the agent file, and the
Python files the agent file names. Nothing is written here: the `import` command (and the
sample's script) decide where the texts go."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from holodeck_lsp.importers.convfinqa.agent_file import agent_yaml
from holodeck_lsp.importers.convfinqa.cases import case_name, document_path, to_test_case
from holodeck_lsp.importers.convfinqa.documents import render_document
from holodeck_lsp.importers.convfinqa.records import find_ids, read_split
from holodeck_lsp.importers.convfinqa.selection import Selection, select

_HERE = Path(__file__).resolve().parent
#: The files an imported suite runs with, by the name they take beside agent.yaml: the tools
#: and the code grader it names, and the program language both import (`language.py` is
#: also what this importer itself computes with, so suite and importer cannot disagree).
SUPPORT_FILES = {
    "tools.py": _HERE / "suite_files" / "tools.py",
    "graders.py": _HERE / "suite_files" / "graders.py",
    "convfinqa.py": _HERE / "language.py",
}

#: What the command writes into the header and the subset; the sample's script passes its own.
GENERATED_BY = "`holodeck-lsp import convfinqa` from data/convfinqa_subset.json"
SELECTION_NOTE = (
    "the first n dialogues in file order whose answers are numbers that agree with their "
    "own programs (see `holodeck-lsp import convfinqa --help`)"
)
IDS_NOTE = (
    "the dialogues --ids named, in that order, whose answers are numbers that agree with "
    "their own programs"
)


@dataclass(frozen=True)
class Conversion:
    selection: Selection
    #: data/convfinqa_subset.json
    subset: str
    #: data/documents/<file name> -> the page
    documents: dict[str, str]
    agent: str
    turns: int


def convert(
    source: Path,
    split: str,
    count: int | None,
    ids: Sequence[str] = (),
    *,
    generated_by: str = GENERATED_BY,
    selection_note: str = SELECTION_NOTE,
) -> Conversion:
    """Convert `split` of `source`: the first `count` usable dialogues (None: all), or the
    ones `ids` names. BadSource when the file or a record cannot be read."""
    records, split = read_split(source, split)
    if ids:
        selection = select(find_ids(records, ids, source, split), None)
    else:
        selection = select(records, count)
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
    subset: dict[str, object] = {
        "source": source.name,
        "split": split,
        "n": "all" if count is None and not ids else (len(ids) if ids else count),
    }
    if ids:
        subset["ids"] = list(ids)
    subset["selection"] = IDS_NOTE if ids else selection_note
    subset["passed_over"] = selection.passed_over
    subset["dialogues"] = dialogues
    documents = {
        f"{case_name(record['id'])}.txt": render_document(record) for record in selection.chosen
    }
    # The agent file is written from the subset as it reads back, as the script always did.
    subset_text = json.dumps(subset, indent=2, ensure_ascii=False) + "\n"
    reread = json.loads(subset_text)["dialogues"]
    return Conversion(
        selection,
        subset_text,
        documents,
        agent_yaml(reread, split, generated_by),
        sum(len(d["test_case"]["turns"]) for d in dialogues),
    )
