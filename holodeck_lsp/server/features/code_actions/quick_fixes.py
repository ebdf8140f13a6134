"""Quick fixes and refactors as plain text edits, computed from a document's text alone.

Everything here works in code-point offsets into the document text (what the YAML parser's
marks count); `code_actions` turns the results into LSP positions and workspace edits. The
document is parsed again here (the checker's result is not kept per version), which costs
milliseconds; a fix is only offered when the node it would change is found and simple
enough to rewrite safely. Nothing raises for broken input: no node, no fix.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from holodeck_lsp.config.suite_locator import case_nodes
from holodeck_lsp.config.yaml_document import parse_yaml
from holodeck_lsp.schema.test_case import LEGACY_FIELDS

#: Deeper than any agent file; the walk stops there instead of recursing further.
_MAX_DEPTH = 200
#: A value that needs no quotes in a YAML block or flow context.
_PLAIN_SAFE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-/]*")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_GRADER_IMPORT = "from holodeck_lsp.engine.code_graders import GraderContext, GraderResult\n"
_BLOCK_STYLES = ("|", ">")


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace `text[start:end]` with `new_text` (code-point offsets)."""

    start: int
    end: int
    new_text: str


@dataclass(frozen=True, slots=True)
class FileChange:
    """Edits to another file; `create` when it does not exist yet (edits then insert at 0)."""

    path: Path
    create: bool
    edits: list[Edit]
    #: The text the edits' offsets refer to ("" for a new file).
    text: str


@dataclass(frozen=True, slots=True)
class Fix:
    title: str
    #: Edits to the document the fix was asked for.
    edits: list[Edit] = field(default_factory=list)
    files: list[FileChange] = field(default_factory=list)
    preferred: bool = False


def _walk(node: Node, depth: int = 0) -> Iterator[Node]:
    """Every node of the tree, keys included (aliased collections once per occurrence,
    bounded by depth)."""
    yield node
    if depth > _MAX_DEPTH:
        return
    if isinstance(node, MappingNode):
        for key, value in node.value:
            yield from _walk(key, depth + 1)
            yield from _walk(value, depth + 1)
    elif isinstance(node, SequenceNode):
        for item in node.value:
            yield from _walk(item, depth + 1)


def _scalar_at(root: Node, offset: int) -> ScalarNode | None:
    """The scalar whose source text contains `offset` (the innermost, if any overlap)."""
    found: ScalarNode | None = None
    for node in _walk(root):
        if not isinstance(node, ScalarNode):
            continue
        inside = node.start_mark.index <= offset < node.end_mark.index
        if inside and (found is None or node.start_mark.index >= found.start_mark.index):
            found = node
    return found


def _double_quoted(value: str) -> str:
    # JSON strings are valid YAML double-quoted scalars (same escapes).
    return json.dumps(value, ensure_ascii=False)


def _is_plain(node: ScalarNode) -> bool:
    return not node.style


def _replacement_for(node: ScalarNode, value: str) -> str:
    """`value` written the way `node` was: plain if it was plain and can stay so."""
    if node.style == "'" and "\n" not in value:
        return "'" + value.replace("'", "''") + "'"
    if _is_plain(node) and _PLAIN_SAFE.fullmatch(value):
        return value
    return _double_quoted(value)


def _replace(node: ScalarNode, new_text: str) -> Edit:
    return Edit(node.start_mark.index, node.end_mark.index, new_text)


# -- the fixes ---------------------------------------------------------------------------------


def fixes_for(
    text: str,
    code: str,
    offset: int,
    data: Mapping[str, object],
    agent_dir: Path | None,
    message: str = "",
) -> list[Fix]:
    """Quick fixes for one diagnostic (`code` at code-point `offset` of `text`)."""
    if code == "HD111":
        moved = legacy_into_first_turn(text, offset)
        return [] if moved is None else [moved]
    root = parse_yaml(text).root
    if root is None:
        return []
    node = _scalar_at(root, offset)
    if node is None or node.tag is None:
        return []
    suggestion = data.get("suggestion")
    if code == "HD102":
        return _quote(node, data, message)
    if code in ("HD100", "HD103", "HD201", "HD125") and isinstance(suggestion, str) and suggestion:
        return _did_you_mean(node, suggestion)
    if code == "HD120":
        return _literal_regex(node)
    if code in ("HD131", "HD132") and agent_dir is not None:
        return _grader_stub(node, code, agent_dir)
    return []


def _quote(node: ScalarNode, data: Mapping[str, object], message: str) -> list[Fix]:
    expected = data.get("expected")
    # Fields say so in `expected`; matcher patterns (`fuzzy: 12`) only in the message.
    wants_string = (isinstance(expected, str) and "string" in expected) or (
        "must be a string" in message
    )
    if not _is_plain(node) or not wants_string:
        return []
    return [Fix("Quote the value", [_replace(node, _double_quoted(node.value))], preferred=True)]


def _did_you_mean(node: ScalarNode, suggestion: str) -> list[Fix]:
    if node.style in _BLOCK_STYLES or node.value == suggestion:
        return []
    edit = _replace(node, _replacement_for(node, suggestion))
    return [Fix(f"Change to '{suggestion}'", [edit], preferred=True)]


def _literal_regex(node: ScalarNode) -> list[Fix]:
    if node.style in _BLOCK_STYLES:
        return []
    edit = _replace(node, _double_quoted(re.escape(node.value)))
    return [Fix("Match this text literally", [edit], preferred=True)]


def _grader_stub(node: ScalarNode, code: str, agent_dir: Path) -> list[Fix]:
    module, _, attribute = node.value.strip().partition(":")
    module, attribute = module.strip(), attribute.strip()
    if not _MODULE.fullmatch(module) or not _IDENTIFIER.fullmatch(attribute):
        return []
    relative = Path(*module.split("."))
    candidates = [agent_dir / relative.with_suffix(".py"), agent_dir / relative / "__init__.py"]
    existing = next((path for path in candidates if path.is_file()), None)
    if code == "HD132":
        if existing is None:
            return []  # found elsewhere on sys.path: not ours to edit
        try:
            source = existing.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            return []
        change = FileChange(existing, False, _append_stub(source, attribute), source)
        title = f"Create grader function `{attribute}` in `{existing.name}`"
    else:
        if existing is not None or any(
            parent.exists() and not parent.is_dir()
            for parent in candidates[0].parents
            if agent_dir in parent.parents
        ):
            return []
        target = candidates[0]
        stub = '"""Code graders for this suite."""\n\n' + _GRADER_IMPORT + _stub(attribute)
        change = FileChange(target, True, [Edit(0, 0, stub)], "")
        title = f"Create grader function `{attribute}` in `{target.name}`"
    return [Fix(title, files=[change], preferred=True)]


def _stub(name: str) -> str:
    return (
        f"\n\ndef {name}(ctx: GraderContext) -> GraderResult:\n"
        '    """Stub created by holodeck-lsp: replace the body with your check.\n'
        "\n"
        "    `ctx` is the turn: ctx.turn_input, ctx.agent_response, ctx.ground_truth,\n"
        "    ctx.tool_invocations, ctx.retrieval_context, ctx.turn_config. Return a\n"
        "    GraderResult (score 0-1, optional passed / reason / details), a bool or a number.\n"
        '    """\n'
        '    return GraderResult(score=0.0, passed=False, reason="not implemented yet")\n'
    )


def _append_stub(source: str, name: str) -> list[Edit]:
    end = len(source)
    stub = ("" if not source or source.endswith("\n") else "\n") + _stub(name)
    if re.search(r"import[^\n]*\bGraderContext\b", source) and re.search(
        r"import[^\n]*\bGraderResult\b", source
    ):
        return [Edit(end, end, stub)]
    where = _import_offset(source)
    if where is None:  # not parseable: put the import right before the stub
        return [Edit(end, end, stub.replace("\n\ndef ", "\n\n" + _GRADER_IMPORT + "\n\ndef ", 1))]
    if where == end:
        return [Edit(end, end, _GRADER_IMPORT + stub)]
    return [Edit(where, where, _GRADER_IMPORT), Edit(end, end, stub)]


def _import_offset(source: str) -> int | None:
    """Where a new import goes: after the module docstring and `__future__` imports."""
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError):
        return None
    line = 0  # 0-based line the import goes before
    for index, statement in enumerate(body):
        is_docstring = (
            index == 0
            and isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str)
        )
        is_future = isinstance(statement, ast.ImportFrom) and statement.module == "__future__"
        if not (is_docstring or is_future):
            break
        line = statement.end_lineno or statement.lineno
    lines = source.splitlines(keepends=True)
    return sum(len(text) for text in lines[:line])


# -- single-turn case -> turns -----------------------------------------------------------------


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
