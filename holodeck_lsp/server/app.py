"""The holodeck-lsp language server: built from one module per feature, served over stdio or
TCP. Start-up stays cheap — the checker itself is imported in a background thread right after
the initialize response (see `HolodeckServer.warm_up`)."""

from __future__ import annotations

from holodeck_lsp.server import (
    code_actions,
    completion,
    definition,
    diagnostics,
    folding,
    hover,
    pull,
    settings,
    symbols,
    test_discovery,
)
from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.idle_gc import IdleCollector
from holodeck_lsp.server.runs import commands as run_commands


def create_server() -> HolodeckServer:
    server = HolodeckServer()
    settings.register(server)
    server.diagnostics_engine = diagnostics.register(server)
    pull.register(server)
    code_actions.register(server)
    hover.register(server)
    symbols.register(server)
    folding.register(server)
    definition.register(server)
    completion.register(server)
    runner = run_commands.register(server)
    test_discovery.register(server, runner)
    return server


def _collect_when_idle(server: HolodeckServer) -> None:
    """See `idle_gc`: no automatic collection while serving; one after each quiet spell."""
    collector = IdleCollector()
    collector.start()
    server.activity_listeners.append(collector.activity)


def serve_stdio() -> None:
    server = create_server()
    _collect_when_idle(server)
    server.start_io()


def serve_tcp(host: str, port: int) -> None:
    server = create_server()
    _collect_when_idle(server)
    server.start_tcp(host, port)
