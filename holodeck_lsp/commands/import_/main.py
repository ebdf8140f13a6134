"""`holodeck-lsp import DATASET …`: choose the dataset's importer from the table and run it.

Every importer is a module of this package exposing exactly

    NAME: str                      the dataset, as typed after `import`
    HELP: str                      one line for the list of datasets
    def add_arguments(parser: argparse.ArgumentParser) -> None
    def run(options: argparse.Namespace) -> int     an exit status of exit_codes.py

so adding a dataset is one module and one row of IMPORTERS; the list of datasets (no
dataset, an unknown one, `--help`) is read from the table.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Sequence
from typing import Protocol

from holodeck_lsp.commands._common import fail
from holodeck_lsp.commands.import_ import bfcl, convfinqa
from holodeck_lsp.exit_codes import EXIT_BAD_INPUT, EXIT_OK, IMPORT_EXIT_CODES, epilog

PROG = "holodeck-lsp import"


class Importer(Protocol):
    NAME: str
    HELP: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, options: argparse.Namespace) -> int: ...


#: The datasets, in the order the help lists them.
IMPORTERS: tuple[Importer, ...] = (convfinqa, bfcl)


def dataset_names() -> list[str]:
    return [importer.NAME for importer in IMPORTERS]


def parser_for(importer: Importer) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{PROG} {importer.NAME}",
        description=importer.HELP,
        epilog=epilog(IMPORT_EXIT_CODES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    importer.add_arguments(parser)
    return parser


def help_text() -> str:
    width = max(len(name) for name in dataset_names()) + 2
    rows = "\n".join(f"  {i.NAME.ljust(width)}{i.HELP}" for i in IMPORTERS)
    return (
        f"usage: {PROG} DATASET SOURCE [OPTIONS]\n\n"
        "Write a public benchmark's records as a HoloDeck test suite (see docs/importing.md).\n\n"
        f"datasets:\n{rows}\n\n"
        f"`{PROG} DATASET --help` lists a dataset's options.\n\n"
        f"{epilog(IMPORT_EXIT_CODES)}\n"
    )


def main(argv: Sequence[str]) -> int:
    args = list(argv)
    names = ", ".join(dataset_names())
    if not args:
        print(f"usage: {PROG} DATASET SOURCE [OPTIONS]", file=sys.stderr)
        return fail(EXIT_BAD_INPUT, f"name the dataset to import: one of {names}")
    first = args[0]
    if first in ("-h", "--help", "help"):
        sys.stdout.write(help_text())
        return EXIT_OK
    importer = next((i for i in IMPORTERS if first == i.NAME), None)
    if importer is None:
        close = difflib.get_close_matches(first.lower(), dataset_names(), n=1, cutoff=0.6)
        hint = f"; did you mean `{close[0]}`?" if close else ""
        what = "the dataset comes first, not " if first.startswith("-") else "unknown dataset "
        return fail(EXIT_BAD_INPUT, f"{what}{first!r}{hint} (datasets: {names}; see {PROG} --help)")
    try:
        options = parser_for(importer).parse_intermixed_args(args[1:])
    except SystemExit as exit_:  # --help (0) or a usage error (2)
        return exit_.code if isinstance(exit_.code, int) else EXIT_BAD_INPUT
    return importer.run(options)
