"""Rewriting a whole test case: a single-turn case into the `turns:` form, and (HD111) the
single-turn fields of a case that also has `turns:` into a new first turn."""

from __future__ import annotations

from dataclasses import dataclass

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from holodeck_lsp.checker.fixes.edits import Edit, Fix
from holodeck_lsp.checker.suite_locator import case_nodes
from holodeck_lsp.checker.yaml_document import parse_yaml
from holodeck_lsp.schema.test_case import LEGACY_FIELDS


def to_turns(text: str, offset: int) -> Fix | None:
    """Rewrite the legacy single-turn case around `offset` into the `turns:` form."""
    root = parse_yaml(text).root
    if root is None:
        return None
    case = _case_at(root, offset)
    if case is None:
        return None
    keys = [key.value for key, _ in case.value]
    if "turns" in keys or "input" not in keys:
        return None
    entries = _entries(text, case)
    if entries is None:
        return None
    column = case.value[0][0].start_mark.column
    indent = " " * column
    out: list[str] = []
    turn: list[str] = []
    for item in entries:
        name, entry = item.name, item.text
        if name not in LEGACY_FIELDS:
            out.append(entry)
            continue
        if not turn:
            out.append("turns:\n")  # where the first moved field was
            out.append("")  # the turn itself, filled in below
        # The turn is one part: only its first line gets the case's indent.
        turn.append(("  - " if not turn else " " * (column + 4)) + _shift(entry, 4))
    out[out.index("turns:\n") + 1] = "".join(turn)
    new_text = out[0] + "".join(indent + part for part in out[1:])
    start = case.value[0][0].start_mark.index
    return Fix("Convert to multi-turn (`turns:`)", [Edit(start, entries_end(text, case), new_text)])


def _case_at(root: Node, offset: int) -> MappingNode | None:
    """The block-style test case (an item of the suite's list: the agent's `test_cases:`, or
    an include's) at `offset`."""
    for item in case_nodes(root):
        if (
            isinstance(item, MappingNode)
            and not item.flow_style
            and item.value
            and item.start_mark.index <= offset <= item.end_mark.index
        ):
            return item
    return None


def entries_end(text: str, case: MappingNode) -> int:
    """End of the case's last entry: the end of the line its value ends on."""
    end: int = case.value[-1][1].end_mark.index
    # A block collection ends where the next token starts: back up over the whitespace.
    while end > 0 and text[end - 1] in " \t\r\n":
        end -= 1
    newline = text.find("\n", end)
    return len(text) if newline < 0 else newline + 1


@dataclass(frozen=True, slots=True)
class _Entry:
    name: str
    value: Node
    #: Offset of its key.
    key: int
    #: Its source from the key on, ending in a newline; later lines keep their indentation.
    text: str


def _entries(text: str, case: MappingNode) -> list[_Entry] | None:
    """Each entry's source text, from its key to the next key's line (comments in between
    go with the entry before). None unless every key is a plain scalar starting its own
    line at the same column (the first may follow `- `)."""
    pairs = case.value
    column = pairs[0][0].start_mark.column
    starts: list[int] = []
    for index, (key, _) in enumerate(pairs):
        if not isinstance(key, ScalarNode) or key.style or key.start_mark.column != column:
            return None
        line_start = text.rfind("\n", 0, key.start_mark.index) + 1
        before = text[line_start : key.start_mark.index]
        if index > 0 and before.strip():
            return None
        starts.append(key.start_mark.index if index == 0 else line_start)
    ends = [*starts[1:], entries_end(text, case)]
    entries: list[_Entry] = []
    for index, ((key, value), start, end) in enumerate(zip(pairs, starts, ends, strict=True)):
        source = text[start:end]
        if index > 0:
            source = source[column:]  # its own indent; the caller re-adds the right one
        if not source.endswith("\n"):
            source += "\n"
        entries.append(_Entry(str(key.value), value, key.start_mark.index, source))
    return entries


def _shift(entry: str, by: int) -> str:
    """`entry` with every line after the first indented `by` more (blank lines stay blank)."""
    first, _, rest = entry.partition("\n")
    lines = rest.split("\n")
    shifted = [(" " * by + line) if line.strip() else line for line in lines]
    return first + "\n" + "\n".join(shifted)


def legacy_into_first_turn(text: str, offset: int) -> Fix | None:
    """HD111: the single-turn fields of a case that also has `turns:` become a new first
    turn. Only when they include `input` (otherwise they are not a turn of their own, and
    which turn they belong to is the user's call) and `turns:` is a block list."""
    root = parse_yaml(text).root
    case = None if root is None else _case_at(root, offset)
    entries = None if case is None else _entries(text, case)
    if case is None or entries is None:
        return None
    legacy = [entry for entry in entries if entry.name in LEGACY_FIELDS]
    turns = next((entry.value for entry in entries if entry.name == "turns"), None)
    if not any(entry.name == "input" for entry in legacy) or not isinstance(turns, SequenceNode):
        return None
    if turns.flow_style or not turns.value:
        return None
    dash = turns.start_mark.index
    line_start = text.rfind("\n", 0, dash) + 1
    if text[line_start:dash].strip() or not text.startswith("-", dash):
        return None
    dash_column = dash - line_start
    shift = dash_column + 2 - case.value[0][0].start_mark.column
    parts = [
        (" " * dash_column + "- " if index == 0 else " " * (dash_column + 2))
        + _shift(entry.text, shift)
        for index, entry in enumerate(legacy)
    ]
    edits = _deletions(text, entries, entries_end(text, case))
    edits.append(Edit(line_start, line_start, "".join(parts)))
    return Fix("Move the single-turn fields into a new first turn", edits)


def _deletions(text: str, entries: list[_Entry], end_of_case: int) -> list[Edit]:
    """Edits removing the legacy entries: from a key to the next kept key (so `- ` and the
    next key's indent stay), or, at the end of the case, whole lines."""
    edits: list[Edit] = []
    run_start: int | None = None
    for index, entry in enumerate(entries):
        legacy = entry.name in LEGACY_FIELDS
        if legacy and run_start is None:
            run_start = entry.key
        if run_start is not None and not legacy:
            edits.append(Edit(run_start, entry.key, ""))
            run_start = None
        if run_start is not None and index == len(entries) - 1:
            edits.append(Edit(text.rfind("\n", 0, run_start) + 1, end_of_case, ""))
    return edits
