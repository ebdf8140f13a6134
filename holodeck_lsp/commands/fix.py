"""`check --fix` writes the safe quick fixes (checker/fixes/safe.py) and prints each change;
`check --diff` prints them as a unified diff and writes nothing."""

from __future__ import annotations

import difflib
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from holodeck_lsp.checker.diagnostics import Diagnostic
from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.checker.fixes.safe import fix_text
from holodeck_lsp.checker.loader import load_agent_file
from holodeck_lsp.commands._common import fail
from holodeck_lsp.exit_codes import EXIT_BAD_INPUT, EXIT_OK
from holodeck_lsp.terminal import Palette


def apply_fixes(
    files: Iterable[Path], *, write: bool, palette: Palette, out: TextIO | None = None
) -> int:
    """Fix every document of `files` (an include's faults are fixed in the include). With
    `write` False (`--diff`): exit status 2 when something would change, as `ruff --diff`
    fails, so CI can demand a fixed tree. `out` receives the "fixed" lines and the diff
    (stdout by default; stderr when stdout carries a machine format)."""
    stream: TextIO = out or sys.stdout
    status = EXIT_OK
    changed = 0
    for agent in files:
        diagnostics = load_agent_file(agent).diagnostics
        by_file: dict[str, list[Diagnostic]] = {}
        for diagnostic in diagnostics:
            by_file.setdefault(diagnostic.file or str(agent), []).append(diagnostic)
        for name, found in by_file.items():
            path = Path(name)
            try:
                text = read_file_text(path, "utf-8", yaml=True)
            except (OSError, UnicodeDecodeError) as error:
                status = fail(EXIT_BAD_INPUT, f"cannot read {path}: {error}")
                continue
            fixed = fix_text(text, found, path.parent)
            if not fixed.applied:
                continue
            changed += 1
            shown = _shown(path, agent)
            if write:
                try:
                    # newline="" keeps the file's own line endings: the edits carry none.
                    path.write_text(fixed.text, encoding="utf-8", newline="")
                except OSError as error:
                    status = fail(EXIT_BAD_INPUT, f"cannot write {path}: {error}")
                    continue
                for item in fixed.applied:
                    start = item.diagnostic.range.start
                    print(
                        f"{shown}:{start.line + 1}:{start.character + 1}: "
                        f"{palette.paint('fixed', 'green', 'bold')}: {item.title}: "
                        f"{item.before} -> {item.after} [{item.diagnostic.code.value}]",
                        file=stream,
                    )
            else:
                stream.writelines(_diff(text, fixed.text, shown, palette))
    if write:
        noun = "file" if changed == 1 else "files"
        print(f"fixed {changed} {noun}" if changed else "nothing to fix safely", file=sys.stderr)
    elif not changed:
        print("nothing to fix safely", file=sys.stderr)
    stream.flush()
    if not write and changed:
        return EXIT_BAD_INPUT
    return status


def _shown(path: Path, agent: Path) -> str:
    """The path as the check shows it: as given, or relative to the current directory."""
    if path == agent:
        return str(agent)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def diff_name(shown: str) -> str:
    """The path in a diff's `--- a/…` / `+++ b/…` headers: relative to the current folder
    when it lies below it, else the absolute path without its leading `/` (git's form: `a/`
    then the path, never `a//abs/…`), so `patch -p1` / `git apply` find the file."""
    path = Path(shown)
    if not path.is_absolute():
        return path.as_posix()
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except (ValueError, OSError):
        return path.as_posix().lstrip("/")


def _diff(before: str, after: str, shown: str, palette: Palette) -> list[str]:
    name = diff_name(shown)
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    out = []
    for line in lines:
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        if line.startswith("+") and not line.startswith("+++"):
            line = palette.paint(line.rstrip("\n"), "green") + "\n"
        elif line.startswith("-") and not line.startswith("---"):
            line = palette.paint(line.rstrip("\n"), "red") + "\n"
        out.append(line)
    return out
