"""HD131 / HD132: create the missing grader function (a stub) in the module it names; for
HD132, first offer the module's closest grader-shaped function instead (a typo is likelier
than a grader not written yet)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from ruamel.yaml.nodes import ScalarNode

from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.checker.fixes.edits import Edit, FileChange, Fix
from holodeck_lsp.checker.fixes.nodes import BLOCK_STYLES, replace, replacement_for
from holodeck_lsp.checker.graders.shape import grader_functions
from holodeck_lsp.checker.python_source.ast_parse import parse_python
from holodeck_lsp.checker.suggestions import closest

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_GRADER_IMPORT = "from holodeck_lsp.engine.code_graders import GraderContext, GraderResult\n"


def grader_stub(node: ScalarNode, code: str, agent_dir: Path) -> list[Fix]:
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
            source = read_file_text(existing, "utf-8-sig")
        except (OSError, UnicodeDecodeError):
            return []
        change = FileChange(existing, False, _append_stub(source, attribute), source)
        title = f"Create grader function `{attribute}` in `{existing.name}`"
        rename = _closest_grader(node, module, attribute, existing)
        if rename is not None:
            return [rename, Fix(title, files=[change])]
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


def _closest_grader(node: ScalarNode, module: str, attribute: str, path: Path) -> Fix | None:
    """A fix "Change to 'module:<closest grader-shaped function>'" if one is close enough."""
    if node.style in BLOCK_STYLES:
        return None
    names = [name for name, _ in grader_functions(path) if name != attribute]
    suggestion = closest(attribute, names)
    if suggestion is None:
        return None
    value = f"{module}:{suggestion}"
    # `mod:name` needs no quotes (no ": "): a plain reference stays plain.
    edit = replace(node, value if not node.style else replacement_for(node, value))
    return Fix(f"Change to '{suggestion}'", [edit], preferred=True)


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
        body = parse_python(source).body
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
