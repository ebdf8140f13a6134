"""`holodeck-lsp import DATASET …`: choose the dataset's importer from the registry
(holodeck_lsp/commands/import_/registry.py), run it, and say what it wrote.

The datasets — the list `--help` prints, the choices of the first word, the unknown-dataset
message and shell completion (`import_parser`) — are all read from the registry, so adding a
dataset is one registration there (docs/importing.md, "Adding an importer").
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Sequence

from holodeck_lsp.commands._common import fail, warn
from holodeck_lsp.commands.import_.protocol import Importer, ImportRefused, ImportWriteFailed
from holodeck_lsp.commands.import_.registry import find_importer, importers
from holodeck_lsp.exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_CANNOT_RUN,
    EXIT_OK,
    IMPORT_EXIT_CODES,
    epilog,
)

PROG = "holodeck-lsp import"


def dataset_names() -> list[str]:
    return [importer.name for importer in importers()]


def parser_for(importer: Importer) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{PROG} {importer.name}",
        description=importer.description,
        epilog=epilog(IMPORT_EXIT_CODES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    importer.add_arguments(parser)
    return parser


def import_parser() -> argparse.ArgumentParser:
    """`import` whole, each dataset a subparser: what shell completion is written from (the
    datasets as the first word, their options after it). `main` chooses the dataset itself,
    for its own messages."""
    parser = argparse.ArgumentParser(prog=PROG)
    datasets = parser.add_subparsers(metavar="DATASET")
    for importer in importers():
        importer.add_arguments(datasets.add_parser(importer.name, help=importer.description))
    return parser


def help_text() -> str:
    width = max(len(name) for name in dataset_names()) + 2
    rows = "\n".join(f"  {i.name.ljust(width)}{i.description}" for i in importers())
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
    importer = find_importer(first)
    if importer is None:
        close = difflib.get_close_matches(first.lower(), dataset_names(), n=1, cutoff=0.6)
        hint = f"; did you mean `{close[0]}`?" if close else ""
        what = "the dataset comes first, not " if first.startswith("-") else "unknown dataset "
        return fail(EXIT_BAD_INPUT, f"{what}{first!r}{hint} (datasets: {names}; see {PROG} --help)")
    try:
        options = parser_for(importer).parse_intermixed_args(args[1:])
    except SystemExit as exit_:  # --help (0) or a usage error (2)
        return exit_.code if isinstance(exit_.code, int) else EXIT_BAD_INPUT
    try:
        result = importer.run(options)
    except ImportRefused as error:
        return fail(EXIT_BAD_INPUT, str(error))
    except ImportWriteFailed as error:
        return fail(EXIT_CANNOT_RUN, str(error))
    for warning in result.warnings:
        warn(warning)
    for line in (result.summary, *result.details, f"next: holodeck-lsp check {result.output}"):
        print(line, file=sys.stderr)
    return EXIT_OK
