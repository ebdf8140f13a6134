"""`import bfcl PATH`: BFCL's multi-turn records as a suite folder (docs/importing-bfcl.md),
as an `Importer` (commands/import_/protocol.py). A thin wrapper: the import itself is
holodeck_lsp.importers.bfcl (`import_bfcl`); this reads the flags and writes its files."""

from __future__ import annotations

import argparse
from pathlib import Path

from holodeck_lsp.argument_types import positive_int
from holodeck_lsp.commands.import_.protocol import ImportRefused, ImportResult
from holodeck_lsp.commands.import_.suite_writing import write_suite_files

_CATEGORIES = ("base", "miss_func", "miss_param", "long_context")


class BfclImporter:
    name = "bfcl"
    description = (
        "BFCL multi-turn (the bfcl-eval wheel, its unpacked folder or one data file) as a suite"
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "path",
            type=Path,
            metavar="PATH",
            help="the bfcl-eval wheel (pip download --no-deps bfcl-eval), an unpacked copy, or "
            "one BFCL_v4_multi_turn_<category>.json beside possible_answer/ and "
            "multi_turn_func_doc/",
        )
        parser.add_argument(
            "-o",
            "--out",
            "--output",  # `--out` as `import convfinqa` spells it; both are accepted
            dest="output",
            type=Path,
            default=Path("bfcl-multi-turn"),
            metavar="DIR",
            help="the suite's folder (default: ./bfcl-multi-turn)",
        )
        parser.add_argument(
            "--categories",
            default="base",
            metavar="LIST",
            help=f"comma-separated, of {', '.join(_CATEGORIES)}, or all (default: base)",
        )
        parser.add_argument(
            "--n", type=positive_int, default=None, metavar="N", help="the first N of each category"
        )
        parser.add_argument(
            "--ids",
            default=None,
            metavar="LIST",
            help="only these record ids, comma-separated (multi_turn_base_0,…)",
        )
        parser.add_argument(
            "--classes",
            default=None,
            metavar="LIST",
            help="only records whose classes are all among these, comma-separated "
            "(GorillaFileSystem,TwitterAPI,…): fewer tools, one agent file",
        )
        parser.add_argument(
            "--name", default="bfcl-multi-turn", help="the agents' name (default: bfcl-multi-turn)"
        )
        parser.add_argument(
            "--force", action="store_true", help="replace the files of an earlier import in DIR"
        )

    def run(self, args: argparse.Namespace) -> ImportResult:
        # Imported here: `holodeck-lsp --help` must not pay for the importer.
        from holodeck_lsp.importers.bfcl.errors import ImportInputError
        from holodeck_lsp.importers.bfcl.importer import Selection, import_bfcl, summary

        categories = _CATEGORIES if args.categories == "all" else _split(args.categories)
        ids = frozenset(_split(args.ids)) if args.ids else None
        classes = frozenset(_split(args.classes)) if args.classes else None
        selection = Selection(categories, args.n, ids, args.name, classes)
        try:
            suite = import_bfcl(args.path, selection)
        except ImportInputError as error:
            raise ImportRefused(str(error)) from None
        output: Path = args.output
        written = write_suite_files(output, suite.files, force=args.force)
        return ImportResult(
            output=output,
            files_written=written,
            cases=len(suite.records),
            summary=f"imported {summary(suite)} into {output}",
        )


def _split(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())
