"""What every importer is (`Importer`) and what it returns (`ImportResult`), so the `import`
command treats them alike; the list of importers is registry.py."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class ImportRefused(Exception):
    """The input or the flags cannot be imported; the message leads with cause and fix
    (`import` exits 2)."""


class ImportWriteFailed(Exception):
    """The suite's files cannot be written (`import` exits 3)."""


@dataclass(frozen=True, slots=True)
class ImportResult:
    #: The suite's folder (the command suggests `holodeck-lsp check` on it).
    output: Path
    #: Every file written, in the order written.
    files_written: tuple[Path, ...]
    #: Test cases written.
    cases: int
    #: What the user should know though the import succeeded.
    warnings: tuple[str, ...] = ()
    #: One line: what was imported where.
    summary: str = ""
    #: Lines after the summary (records passed over and why).
    details: tuple[str, ...] = ()


class Importer(Protocol):
    #: The dataset, as typed after `import`.
    @property
    def name(self) -> str: ...

    #: One line for the list of datasets.
    @property
    def description(self) -> str: ...

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> ImportResult:
        """Import and write; raises ImportRefused or ImportWriteFailed."""
        ...
