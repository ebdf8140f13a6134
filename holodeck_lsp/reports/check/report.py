"""What a check found, as every output format reads it: per file, its diagnostics sorted by
position, files sorted by path, and the counts. `build_report` regroups diagnostics under the
file they are in (a `test_cases_file` include reports in its own file)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePath

from holodeck_lsp.checker.diagnostics import Diagnostic, Range, Severity
from holodeck_lsp.schema.codes import Code

#: One checked file and what the loader reported for it (diagnostics may name other files).
Checked = tuple[str | os.PathLike[str], Iterable[Diagnostic]]


@dataclass(frozen=True, slots=True)
class FileReport:
    """One document and its diagnostics, sorted by position."""

    #: The path as shown to the user: as given on the command line for checked files, relative
    #: to the current directory (when inside it) for files only reached through an include.
    path: str
    diagnostics: tuple[Diagnostic, ...]


@dataclass(frozen=True, slots=True)
class Summary:
    files: int
    errors: int
    warnings: int
    information: int
    hints: int


@dataclass(frozen=True, slots=True)
class Report:
    """Every file of one check (clean ones too), sorted by path."""

    files: tuple[FileReport, ...]

    @property
    def summary(self) -> Summary:
        counts = dict.fromkeys(Severity, 0)
        for file in self.files:
            for diagnostic in file.diagnostics:
                counts[diagnostic.severity] += 1
        return Summary(
            files=len(self.files),
            errors=counts[Severity.ERROR],
            warnings=counts[Severity.WARNING],
            information=counts[Severity.INFORMATION],
            hints=counts[Severity.HINT],
        )


def build_report(
    checked: Iterable[Checked],
    *,
    cwd: Path | None = None,
    mask_path: Callable[[str], str] = str,
) -> Report:
    """Group each diagnostic under the file it is in; list every checked file even when clean.
    `mask_path` writes an included file's path as shown (a `${VAR}` value in it back as the
    `${VAR}`, checker/env_masking.py)."""
    base = Path.cwd() if cwd is None else cwd.absolute()
    shown: dict[str, str] = {}  # identity key -> display path; first naming wins
    found: dict[str, list[Diagnostic]] = {}
    for path, diagnostics in checked:
        given = os.fspath(path)
        key = _identity(given, base)
        shown.setdefault(key, os.path.normpath(given))
        found.setdefault(key, [])
        for diagnostic in diagnostics:
            # An empty `file` can only mean "this document"; do not invent a file named "".
            in_file = diagnostic.file or given
            in_key = _identity(in_file, base)
            shown.setdefault(in_key, mask_path(_display(in_file, base)))
            found.setdefault(in_key, []).append(diagnostic)
    files = [
        FileReport(shown[key], tuple(sorted(found[key], key=_position_order))) for key in found
    ]
    files.sort(key=lambda file: PurePath(file.path).parts)
    return Report(tuple(files))


def relative_to_root(path: str, root: Path) -> str | None:
    """`path` relative to `root` with forward slashes, or None when it lies outside.

    Symlinks are resolved on both sides: GitHub matches SARIF paths against committed files and
    cannot place a result reported through a symlink.
    """
    real = Path(os.path.realpath(os.path.join(root, path)))
    real_root = Path(os.path.realpath(root))
    if not real.is_relative_to(real_root):
        return None
    return real.relative_to(real_root).as_posix()


def _identity(path: str, base: Path) -> str:
    # The loader may name a document differently from the command line (absolute vs relative,
    # through a symlink); the real absolute path makes both land in one FileReport.
    return os.path.normcase(os.path.realpath(os.path.join(base, path)))


def _display(path: str, base: Path) -> str:
    if os.path.isabs(path):
        absolute = Path(os.path.normpath(path))
        if absolute.is_relative_to(base):
            return str(absolute.relative_to(base))
        return str(absolute)
    return os.path.normpath(path)


def _position_order(diagnostic: Diagnostic) -> tuple[Range, Severity, Code, str]:
    return (diagnostic.range, diagnostic.severity, diagnostic.code, diagnostic.message)
