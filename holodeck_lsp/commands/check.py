"""`holodeck-lsp check PATH…` (also `holodeck-lsp --check PATH…`): see docs/cli.md.

The loader is imported only once there is something to check, so usage errors and `--help`
answer at once.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, get_args

from holodeck_lsp.commands._common import agent_files, fail, write_output
from holodeck_lsp.exit_codes import CHECK_EXIT_CODES, EXIT_BAD_INPUT, EXIT_OK, epilog
from holodeck_lsp.reports.check import Format, build_report, render
from holodeck_lsp.reports.check.text import summary_line
from holodeck_lsp.terminal import COLOR_CHOICES, Palette, wants_color

if TYPE_CHECKING:
    from holodeck_lsp.checker.diagnostics import Diagnostic


def parser(prog: str = "holodeck-lsp check") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Check HoloDeck agent files: every load-time fault, at its position.",
        epilog=epilog(CHECK_EXIT_CODES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="an agent file, or a folder: every agent.yaml / *.agent.yaml below it",
    )
    parser.add_argument(
        "--format", choices=get_args(Format), default="text", help="output format (default: text)"
    )
    parser.add_argument(
        "--trust", action="store_true", help="import grader modules to verify them (runs code)"
    )
    parser.add_argument("--strict", action="store_true", help="exit with status 2 on warnings too")
    parser.add_argument(
        "--output", type=Path, metavar="FILE", help="write the output to FILE, not stdout"
    )
    parser.add_argument(
        "--fix", action="store_true", help="apply the safe quick fixes and print what changed"
    )
    parser.add_argument(
        "--diff", action="store_true", help="show the safe quick fixes as a diff; write nothing"
    )
    parser.add_argument(
        "--watch", action="store_true", help="check again each time a checked file is saved"
    )
    parser.add_argument(
        "--color",
        choices=COLOR_CHOICES,
        default="auto",
        help="colour the text output (default: auto — on a terminal, unless NO_COLOR is set)",
    )
    return parser


def main(argv: Sequence[str], prog: str = "holodeck-lsp check") -> int:
    try:
        # Intermixed: options may come before, between or after the paths.
        options = parser(prog).parse_intermixed_args(list(argv))
    except SystemExit as exit_:  # --help (0) or a usage error (2)
        return exit_.code if isinstance(exit_.code, int) else EXIT_BAD_INPUT
    if options.fix and options.diff:
        return fail(
            EXIT_BAD_INPUT, "--fix and --diff cannot be used together (--diff writes nothing)"
        )
    palette = Palette(wants_color(options.color, sys.stdout) and options.output is None)
    if options.watch:
        from holodeck_lsp.commands.console.file_watch import watch

        return watch(options.paths, lambda: _check_once(options, palette))
    return _check_once(options, palette)


def _check_once(options: argparse.Namespace, palette: Palette) -> int:
    # Nothing checked is not a pass: a CI job pointed at the wrong folder must fail.
    files = agent_files(options.paths)
    if files is None:
        return EXIT_BAD_INPUT

    # A one-shot process keeps every result until it exits: cyclic GC would only re-walk them
    # (and the loader's import, pydantic's models, would pay for a dozen collections).
    gc.disable()
    try:
        from holodeck_lsp.checker.env_masking import masked_text
        from holodeck_lsp.checker.loader import load_agent_file  # pydantic: only when checking

        if options.fix or options.diff:
            from holodeck_lsp.commands.fix import apply_fixes

            # A machine format keeps stdout for itself: the changes go to stderr then.
            out = sys.stdout if options.format == "text" and options.output is None else sys.stderr
            status = apply_fixes(files, write=options.fix, palette=palette, out=out)
            if options.diff:
                return status
        forms: dict[str, str] = {}

        def checked() -> Iterator[tuple[Path, list[Diagnostic]]]:
            for path in files:
                result = load_agent_file(path, trusted=options.trust)
                forms.update(result.env_forms)
                yield path, result.diagnostics

        # A `${VAR}` value in an include's path is shown as the `${VAR}` (`cases_${TENANT}.yaml`).
        report = build_report(checked(), mask_path=lambda shown: masked_text(shown, forms))
    finally:
        gc.enable()
    status = _write(render(report, options.format, palette=palette), options.output)
    summary = report.summary
    if options.format != "text":
        # Machine formats keep their stream clean; the summary is for the human reading the log.
        print(summary_line(summary), file=sys.stderr)
    if status != EXIT_OK or summary.errors or (options.strict and summary.warnings):
        return EXIT_BAD_INPUT
    return EXIT_OK


def _write(text: str, output: Path | None) -> int:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()  # before the summary line on stderr, so a terminal shows them in order
        return EXIT_OK
    return write_output(output, text, status_if_not=EXIT_BAD_INPUT)
