"""The holodeck-lsp language server: built from one module per feature, served over stdio or
TCP. Start-up stays cheap — the checker itself is imported in a background thread right after
the initialize response (see `HolodeckServer.warm_up`).

`create_server` is the list of features. What several features share is built first and
handed to them: the diagnostics engine (checked documents, their diagnostics and which agent
an include belongs to) and the run commands' runner. Features register independently of one
another, in any order.
"""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING

from holodeck_lsp.server import threads
from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.early_handshake import AnsweredStdout, EarlyStart, ReplayingStdin
from holodeck_lsp.server.features import (
    configuration,
    definition,
    folding,
    hover,
    links,
    rename,
    semantic_tokens,
    symbols,
    workspace_symbols,
)
from holodeck_lsp.server.features.code_actions import actions as code_actions
from holodeck_lsp.server.features.completion import candidates as completion
from holodeck_lsp.server.features.diagnostics import pull, sync
from holodeck_lsp.server.features.diagnostics.engine import DiagnosticsEngine
from holodeck_lsp.server.idle_gc import IdleCollector
from holodeck_lsp.server.runs import commands as run_commands
from holodeck_lsp.server.runs import test_discovery
from holodeck_lsp.server.runs.rate_hover import RateHover
from holodeck_lsp.server.runs.regressions import regressions_of
from holodeck_lsp.server.runs.run_actions import run_actions

if TYPE_CHECKING:
    from holodeck_lsp.server.features.diagnostics.analysis import Analysis


def create_server(prechecked: dict[str, Analysis] | None = None) -> HolodeckServer:
    """`prechecked`: checks of the documents the client opened, made before the server
    started (server/early_diagnostics.py), by URI."""
    server = HolodeckServer()
    engine = DiagnosticsEngine(server)
    engine.prechecked = dict(prechecked or {})

    configuration.register(server)  # initializationOptions, workspace/configuration
    sync.register(server, engine)  # didOpen/didChange/didSave/didClose -> checks, push
    pull.register(server, engine)  # textDocument/diagnostic, workspace/diagnostic
    more_actions: list[code_actions.ActionSource] = []  # filled once the runner exists
    code_actions.register(server, engine, more_actions)  # quick fixes, single turn -> `turns:`
    completion.register(server)
    result_hovers: list[hover.ResultHover] = []  # filled once the runner exists
    hover.register(server, result_hovers)
    definition.register(server, engine.agents_including)  # an include's tools: its agents'
    symbols.register(server)  # the outline
    folding.register(server)
    links.register(server)  # documentLink on file paths and grader modules
    rename.register(server, engine.agents_including)  # references, rename across includes
    workspace_symbols.register(server)  # cases and tools of the workspace's agents
    semantic_tokens.register(server)  # matcher kinds, tool, grader and metric names
    runner = run_commands.register(server, engine)  # code lenses, inlay hints, run commands
    result_hovers.append(runner.results.hover_text)
    result_hovers.append(RateHover(runner.results).hover_text)  # pass rates, 95% intervals
    more_actions.append(functools.partial(run_actions, runner))  # editors without lenses
    result_hovers.append(regressions_of(runner).hover_text)  # what changed vs the baseline
    test_discovery.register(server, runner)  # holodeck/discoverTests
    return server


def _collect_when_idle(server: HolodeckServer) -> None:
    """See `idle_gc`: no automatic collection while serving; one after each quiet spell."""
    collector = IdleCollector()
    collector.start()
    server.activity_listeners.append(collector.activity)


def serve_stdio(early: EarlyStart | None = None) -> list[str]:
    """Serve over stdio until `exit` or the end of stdin; the threads still running then
    (`threads`). `early`: what `early_handshake` read (and answered) before the server was
    imported — the server reads it again and its answer is reconciled."""
    server = create_server(early.checked if early is not None else None)
    _collect_when_idle(server)
    if early is None:
        server.start_io()
    else:
        stdin = ReplayingStdin(early.prefix, sys.stdin.buffer)
        stdout = AnsweredStdout(early, sys.stdout.buffer)
        server.start_io(stdin, stdout)  # type: ignore[arg-type]  # read/readline/write/flush
    return threads.settle()


def serve_tcp(host: str, port: int) -> list[str]:
    server = create_server()
    _collect_when_idle(server)
    server.start_tcp(host, port)
    return threads.settle()
