"""`import bfcl` as one function: BFCL's files in, the suite's files out as text (the command
writes them). Nothing is printed and nothing is written here.

The suite is self-contained: agent.yaml and tools.py are generated; bfcl_state.py,
bfcl_grader.py and bfcl_classes/ (BFCL's own classes, Apache-2.0 with LICENSE and NOTICE) are
copied from suite_files/; data/ keeps the chosen records in BFCL's own file layout, so the
tools and the grader read the same initial_config and ground truth BFCL does.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from holodeck_lsp.importers.bfcl.errors import ImportInputError
from holodeck_lsp.importers.bfcl.records import CLASSES, BfclRecord, read_records
from holodeck_lsp.importers.bfcl.source import CATEGORIES, BfclFiles, read_source
from holodeck_lsp.importers.bfcl.suite import agent_yaml, data_lines, tools_py
from holodeck_lsp.importers.bfcl.tool_docs import ToolDoc, read_tool_docs

SUITE_FILES = Path(__file__).resolve().parent / "suite_files"
#: What each suite gets copied as it is (paths relative to suite_files/).
COPIED = (
    "bfcl_state.py",
    "bfcl_grader.py",
    "bfcl_classes/__init__.py",
    "bfcl_classes/LICENSE",
    "bfcl_classes/NOTICE",
    "bfcl_classes/long_context.py",
    *(f"bfcl_classes/{module}.py" for _, module in CLASSES.values()),
)


@dataclass(frozen=True, slots=True)
class ImportedSuite:
    #: Relative path (POSIX) -> text, every file of the suite.
    files: dict[str, str]
    records: list[BfclRecord]
    tools: dict[str, list[ToolDoc]]


@dataclass(frozen=True, slots=True)
class Selection:
    categories: tuple[str, ...] = ("base",)
    #: The first `n` records of each category (None: all).
    n: int | None = None
    #: Only these record ids (None: all), in the files' order.
    ids: frozenset[str] | None = None
    name: str = "bfcl-multi-turn"
    #: Only records whose classes are all among these (None: any), e.g. to fit one file.
    classes: frozenset[str] | None = None


#: Upstream HoloDeck's limit of tools per agent.
MAX_TOOLS = 50


def import_bfcl(path: Path, selection: Selection) -> ImportedSuite:
    """The suite of `selection` from the wheel, folder or file at `path`."""
    strange = sorted((selection.classes or frozenset()) - set(CLASSES))
    if strange:
        raise ImportInputError(
            f"unknown class {', '.join(strange)} in --classes: the multi-turn classes are "
            f"{', '.join(CLASSES)}"
        )
    unknown = [c for c in selection.categories if c not in CATEGORIES]
    if unknown:
        raise ImportInputError(
            f"unknown category {', '.join(unknown)}: BFCL's multi-turn categories are "
            f"{', '.join(CATEGORIES)}"
        )
    files = read_source(path, selection.categories)
    records = _chosen(files, selection)
    docs = _tool_docs(files, records)
    # One agent.yaml when the records' classes have at most 50 tools (upstream's limit per
    # agent); else one agent file per combination of classes (all eight have 128 tools, a
    # combination at most 39). The files share tools.py, data/ and the grader.
    groups: dict[tuple[str, ...], list[BfclRecord]] = {}
    if sum(len(docs[name]) for name in docs) <= MAX_TOOLS:
        groups[tuple(docs)] = records
    else:
        for record in records:
            groups.setdefault(_group(record), []).append(record)
    files_out: dict[str, str] = {}
    for classes, members in groups.items():
        single = len(groups) == 1
        stem = "agent" if single else "+".join(CLASSES[name][1] for name in classes)
        offered = [doc for name in classes for doc in docs[name]]
        title = selection.name if single else f"{selection.name}: {', '.join(classes)}"
        file_name = "agent.yaml" if single else f"{stem}.agent.yaml"
        files_out[file_name] = agent_yaml(title, members, offered, selection.categories)
    files_out["tools.py"] = tools_py([doc for name in docs for doc in docs[name]])
    for category in selection.categories:
        chosen = [r for r in records if r.category == category]
        if not chosen:
            continue
        name = Path(files.questions[category].label.rsplit(":", 1)[-1]).name
        files_out[f"data/{name}"] = data_lines([r.raw for r in chosen])
        files_out[f"data/possible_answer/{name}"] = data_lines(
            [{"id": r.id, "ground_truth": r.ground_truth} for r in chosen]
        )
    for relative in COPIED:
        files_out[relative] = (SUITE_FILES / relative).read_text(encoding="utf-8")
    return ImportedSuite(files_out, records, docs)


def _chosen(files: BfclFiles, selection: Selection) -> list[BfclRecord]:
    records: list[BfclRecord] = []
    for category in selection.categories:
        found = read_records(category, files.questions[category], files.answers[category])
        if selection.ids is not None:
            found = [r for r in found if r.id in selection.ids]
        if selection.classes is not None:
            found = [r for r in found if set(r.involved_classes) <= selection.classes]
        records += found[: selection.n] if selection.n is not None else found
    if selection.ids is not None:
        missing = sorted(selection.ids - {r.id for r in records})
        if missing:
            raise ImportInputError(
                f"no record {', '.join(missing)} in the categories "
                f"{', '.join(selection.categories)} (ids read like multi_turn_base_0; "
                "add its category with --categories)"
            )
    if not records:
        raise ImportInputError("the selection has no records: widen --ids, --n or --categories")
    return records


def _group(record: BfclRecord) -> tuple[str, ...]:
    """The record's classes in BFCL's class order (CLASSES), whatever order it lists them."""
    return tuple(name for name in CLASSES if name in record.involved_classes)


def _tool_docs(files: BfclFiles, records: Sequence[BfclRecord]) -> dict[str, list[ToolDoc]]:
    """Class -> its functions, for every class the records involve (BFCL's class order). The
    eight classes share no function name, so each tool name stands for one method."""
    involved = {name for record in records for name in record.involved_classes}
    by_class: dict[str, list[ToolDoc]] = {}
    for class_name, (doc_file, _) in CLASSES.items():
        if class_name not in involved:
            continue
        source = files.func_docs.get(doc_file)
        if source is None:
            raise ImportInputError(
                f"multi_turn_func_doc/{doc_file} is missing from the input, needed for class "
                f"{class_name}; get the whole wheel with `pip download --no-deps bfcl-eval`"
            )
        by_class[class_name] = read_tool_docs(class_name, source)
    return by_class


def summary(suite: ImportedSuite) -> str:
    """One line about what was imported (the command prints it)."""
    turns = sum(len(r.turns) for r in suite.records)
    categories = json.dumps(sorted({r.category for r in suite.records}))
    return (
        f"{len(suite.records)} records ({turns} turns, categories {categories}), "
        f"{sum(map(len, suite.tools.values()))} tools of {len(suite.tools)} classes, "
        f"{sum(name.endswith('agent.yaml') for name in suite.files)} agent file(s)"
    )
