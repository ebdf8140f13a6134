"""`holodeck-lsp import bfcl PATH`: BFCL's multi-turn records as a suite folder
(docs/importing-bfcl.md). The import itself is holodeck_lsp.importers.bfcl; this module reads
the flags, writes the files and prints one summary line (or the input's error)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from holodeck_lsp.argument_types import positive_int
from holodeck_lsp.commands._common import fail
from holodeck_lsp.exit_codes import EXIT_BAD_INPUT, EXIT_CANNOT_RUN, EXIT_OK

NAME = "bfcl"
HELP = "BFCL multi-turn (the bfcl-eval wheel, its unpacked folder or one data file) as a suite"

_CATEGORIES = ("base", "miss_func", "miss_param", "long_context")


def add_arguments(parser: argparse.ArgumentParser) -> None:
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


def run(options: argparse.Namespace) -> int:
    # Imported here: `holodeck-lsp --help` must not pay for the importer.
    from holodeck_lsp.importers.bfcl.errors import ImportInputError
    from holodeck_lsp.importers.bfcl.importer import Selection, import_bfcl, summary

    categories = _CATEGORIES if options.categories == "all" else _split(options.categories)
    ids = frozenset(_split(options.ids)) if options.ids else None
    classes = frozenset(_split(options.classes)) if options.classes else None
    selection = Selection(categories, options.n, ids, options.name, classes)
    try:
        suite = import_bfcl(options.path, selection)
    except ImportInputError as error:
        return fail(EXIT_BAD_INPUT, str(error))
    output: Path = options.output
    clashing = sorted(name for name in suite.files if (output / name).exists())
    if clashing and not options.force:
        return fail(
            EXIT_BAD_INPUT,
            f"{output} already has {clashing[0]}"
            + (f" and {len(clashing) - 1} more of the suite's files" if len(clashing) > 1 else "")
            + ": pass --force to replace them, or choose another --output",
        )
    for name, text in suite.files.items():
        target = output / name
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        except OSError as error:
            return fail(EXIT_CANNOT_RUN, f"cannot write {target}: {error.strerror or error}")
    print(f"imported {summary(suite)} into {output}")
    print(f"next: holodeck-lsp check {output}", file=sys.stderr)
    return EXIT_OK


def _split(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())
