"""The `holodeck-lsp` command: argument parsing and dispatch only (see docs/cli.md).

The pydantic models and the loader are imported inside the branches that need them, so
`--version` and `--help` answer without paying for them.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from pathlib import Path
from typing import get_args

# These use the standard library only: cheap enough for the --version path.
from holodeck_lsp import __version__
from holodeck_lsp.config.discovery import PathsNotFoundError, find_agent_files
from holodeck_lsp.config.formats import Format, build_report, render
from holodeck_lsp.config.formats.text import summary_line

EXIT_OK = 0
#: Errors found, or the command could not run (bad arguments, missing path): CI fails either way.
EXIT_FAILED = 2

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_TITLE = "HoloDeck agent.yaml"

DEFAULT_HOST = "127.0.0.1"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        return _serve(tcp=False, host=DEFAULT_HOST, port=None)
    if args[0] == "run":
        # Imported here: the runner pulls in pydantic, the engine and asyncio machinery.
        from holodeck_lsp.runner.run_command import main as run_main

        return run_main(args[1:])

    parser = _parser()
    try:
        options = parser.parse_args(args)
        if options.check is None and (options.format or options.trust or options.strict):
            parser.error("--format, --trust and --strict only apply to --check")
        if not options.tcp and (options.host or options.port is not None):
            parser.error("--host and --port only apply to --tcp")
        if options.tcp and options.port is None:
            parser.error("--tcp needs --port N")
    except SystemExit as exit_:
        # argparse exits on --help and on usage errors; main() returns its codes instead.
        return exit_.code if isinstance(exit_.code, int) else EXIT_FAILED

    if options.version:
        print(__version__)
        return EXIT_OK
    if options.stdio or options.tcp:
        return _serve(tcp=options.tcp, host=options.host or DEFAULT_HOST, port=options.port)
    if options.schema:
        return _write(_schema_json(), options.output)
    return _check(
        options.check,
        fmt=options.format or "text",
        trusted=options.trust,
        strict=options.strict,
        output=options.output,
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="holodeck-lsp",
        description="Language server, checker and runner for HoloDeck agent.yaml test suites.",
        epilog="Without arguments: the language server over stdio (see docs/editors/README.md).",
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument(
        "--check",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="check agent files; a directory means every agent.yaml / *.agent.yaml below it",
    )
    action.add_argument("--schema", action="store_true", help="print the JSON Schema of agent.yaml")
    action.add_argument("--version", action="store_true", help="print the version")
    action.add_argument(
        "--stdio", action="store_true", help="serve the language server over stdio (the default)"
    )
    action.add_argument(
        "--tcp", action="store_true", help="serve the language server over TCP (needs --port)"
    )
    parser.add_argument("--host", metavar="HOST", help=f"TCP address (default: {DEFAULT_HOST})")
    parser.add_argument("--port", type=int, metavar="N", help="TCP port of --tcp")
    parser.add_argument(
        "--format", choices=get_args(Format), help="output format of --check (default: text)"
    )
    parser.add_argument(
        "--trust",
        action="store_true",
        help="import grader modules to verify them (runs project code)",
    )
    parser.add_argument("--strict", action="store_true", help="exit with status 2 on warnings too")
    parser.add_argument(
        "--output", type=Path, metavar="FILE", help="write the output to FILE, not stdout"
    )
    return parser


def _check(
    paths: list[Path], *, fmt: Format, trusted: bool, strict: bool, output: Path | None
) -> int:
    try:
        files = find_agent_files(paths)
    except PathsNotFoundError as missing:
        for path in missing.paths:
            _error(f"no such file or directory: {path}")
        return EXIT_FAILED
    if not files:
        _warn("no agent.yaml or *.agent.yaml found under " + ", ".join(map(str, paths)))

    from holodeck_lsp.config.loader import load_agent_file  # pydantic: only when checking

    # A one-shot process keeps every result until it exits: cyclic GC would only re-walk them.
    gc.disable()

    report = build_report(
        (path, load_agent_file(path, trusted=trusted).diagnostics) for path in files
    )
    status = _write(render(report, fmt), output)
    summary = report.summary
    if fmt != "text":
        # Machine formats keep their stream clean; the summary is for the human reading the log.
        print(summary_line(summary), file=sys.stderr)
    if status != EXIT_OK or summary.errors or (strict and summary.warnings):
        return EXIT_FAILED
    return EXIT_OK


def _schema_json() -> str:
    from holodeck_lsp.schema.agent import Agent

    schema = Agent.model_json_schema()
    schema.pop("title", None)
    return json.dumps({"$schema": SCHEMA_DIALECT, "title": SCHEMA_TITLE, **schema}, indent=2) + "\n"


def _write(text: str, output: Path | None) -> int:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()  # before the summary line on stderr, so a terminal shows them in order
        return EXIT_OK
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as failure:
        _error(f"cannot write {output}: {failure.strerror or failure}")
        return EXIT_FAILED
    return EXIT_OK


def _serve(*, tcp: bool, host: str, port: int | None) -> int:
    # The server collects garbage only when idle (server/idle_gc.py); turning automatic
    # collection off here, before the imports, also spares the start-up the collections that
    # lsprotocol's ~1,000 classes trigger (about 10% of the cold start, docs/benchmarks.md).
    gc.disable()
    # Imported here: pygls and lsprotocol are only needed by the server.
    from holodeck_lsp.server.app import serve_stdio, serve_tcp

    if tcp and port is not None:
        serve_tcp(host, port)
    else:
        serve_stdio()
    return EXIT_OK


def _error(message: str) -> None:
    print(f"holodeck-lsp: error: {message}", file=sys.stderr)


def _warn(message: str) -> None:
    print(f"holodeck-lsp: warning: {message}", file=sys.stderr)
