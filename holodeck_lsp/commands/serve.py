"""`holodeck-lsp serve [--stdio | --tcp --port N [--host H]]`: the language server."""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING

from holodeck_lsp.exit_codes import EXIT_BAD_INPUT, EXIT_OK

if TYPE_CHECKING:
    from holodeck_lsp.server.early_handshake import EarlyStart

DEFAULT_HOST = "127.0.0.1"


def _start_early(early_handshake: ModuleType) -> EarlyStart:
    """Before pygls is imported: a client seen before gets its initialize answer now, and the
    agent files it opens right after get their first diagnostics (server/early_diagnostics)."""
    try:
        reader = early_handshake.PipeReader(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):  # no descriptor (an embedding host)
        answered: EarlyStart = early_handshake.answer_early(sys.stdin.buffer, sys.stdout.buffer)
        return answered
    early: EarlyStart = early_handshake.answer_early(reader, sys.stdout.buffer)
    from holodeck_lsp.server import early_diagnostics

    if early_diagnostics.enabled():
        early_diagnostics.publish_early(reader, sys.stdout.buffer, early)
    # The server reads everything again, from the first byte.
    early.prefix = reader.taken()
    return early


def serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="holodeck-lsp serve",
        description="The language server (see docs/editors/README.md).",
    )
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="over stdio (the default)")
    transport.add_argument(
        "--tcp", action="store_true", help="over TCP, one client (for debugging; needs --port)"
    )
    parser.add_argument("--host", metavar="HOST", help=f"TCP address (default: {DEFAULT_HOST})")
    parser.add_argument("--port", type=int, metavar="N", help="TCP port of --tcp")
    return parser


def main(argv: Sequence[str]) -> int:
    parser = serve_parser()
    try:
        options = parser.parse_args(list(argv))
        if not options.tcp and (options.host or options.port is not None):
            parser.error("--host and --port only apply to --tcp")
        if options.tcp and options.port is None:
            parser.error("--tcp needs --port N")
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_BAD_INPUT
    # The server collects garbage only when idle (server/idle_gc.py); turning automatic
    # collection off here, before the imports, also spares the start-up the collections that
    # lsprotocol's ~1,000 classes trigger (about 10% of the cold start, docs/benchmarks-history.md).
    gc.disable()
    early = None
    if not options.tcp:
        from holodeck_lsp.server import early_handshake

        if early_handshake.enabled():
            early = _start_early(early_handshake)
    # The agent SDKs' own log lines (an odd tool call's traceback) stay out of the editor's
    # log, as off `run`'s console: the call and its error are in the results (docs/running.md).
    from holodeck_lsp.runner.backends.backend_logs import console_backend_logs

    console_backend_logs(show=False)
    # Imported here: pygls and lsprotocol are only needed by the server.
    from holodeck_lsp.server.app import serve_stdio, serve_tcp

    if options.tcp:
        left = serve_tcp(options.host or DEFAULT_HOST, options.port)
    else:
        left = serve_stdio(early)
    if left:
        # A thread that would not stop (named in the log): finalising the interpreter under
        # it can abort the process (server/threads.py), so end without finalising — after
        # flushing what the process still has to say. The client may have closed our stdout
        # already (it read the exit's answer and left): a flush then raises, and raising here
        # would finalise the interpreter after all — the abort this path exists to avoid.
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(EXIT_OK)
    return EXIT_OK
