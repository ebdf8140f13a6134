"""Server settings: trust and diagnostics mode from `initializationOptions`, the rest from the
client's `workspace/configuration` section `holodeck` (re-read on didChangeConfiguration).

Trust comes only from `initializationOptions.trusted` — the editor's own workspace-trust
decision, made before the server starts — never from workspace settings, which a cloned
repository could ship. Untrusted (the default): graders are resolved statically and never
imported, and run commands will be refused.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

from lsprotocol import types

if TYPE_CHECKING:
    from holodeck_lsp.server.core import HolodeckServer

log = logging.getLogger(__name__)

SECTION: Final = "holodeck"
DEFAULT_AGENT_GLOBS: Final = ("agent.yaml", "*.agent.yaml")
DEFAULT_DEBOUNCE_MS: Final = 50
MAX_DEBOUNCE_MS: Final = 5_000

DiagnosticsMode = Literal["push", "pull", "both"]
_MODES: Final = ("push", "pull", "both")


@dataclass(slots=True)
class Settings:
    #: Import graders (and, later, allow runs) — from initializationOptions only.
    trusted: bool = False
    #: "push" publishDiagnostics; "pull" textDocument/diagnostic + workspace/diagnostic; "both".
    diagnostics: DiagnosticsMode = "push"
    #: File-name globs (matched against the end of the path) of agent files.
    agent_globs: tuple[str, ...] = DEFAULT_AGENT_GLOBS
    debounce_ms: int = DEFAULT_DEBOUNCE_MS
    #: Stored for the run features; not used by diagnostics.
    cassette_path: str | None = None
    backends: dict[str, Any] = field(default_factory=dict)

    def apply_initialization_options(self, options: object) -> None:
        if not isinstance(options, Mapping):
            return
        self.trusted = options.get("trusted") is True
        mode = options.get("diagnostics")
        if mode in _MODES:
            self.diagnostics = mode
        # Clients without workspace/configuration may pass the settings here too.
        self.apply_configuration(options)

    def apply_configuration(self, raw: object) -> None:
        """Take the known keys of a `holodeck` settings object; bad values are ignored."""
        if not isinstance(raw, Mapping):
            return
        globs = _pick(raw, "agentGlobs", "agent_globs")
        if isinstance(globs, list) and all(isinstance(g, str) and g for g in globs):
            self.agent_globs = tuple(globs) or DEFAULT_AGENT_GLOBS
        debounce = _pick(raw, "debounceMs", "debounce_ms")
        if isinstance(debounce, int | float) and not isinstance(debounce, bool):
            self.debounce_ms = int(max(0, min(debounce, MAX_DEBOUNCE_MS)))
        if "cassettePath" in raw or "cassette_path" in raw:  # absent: keep; empty or null: clear
            cassette = _pick(raw, "cassettePath", "cassette_path")
            if cassette is None or isinstance(cassette, str):
                self.cassette_path = cassette or None
        backends = _pick(raw, "backends")
        if isinstance(backends, Mapping):
            self.backends = dict(backends)


def _pick(raw: Mapping[Any, Any], *names: str) -> Any:
    for name in names:
        if name in raw:
            return raw[name]
    return None


def register(server: HolodeckServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        server.settings.apply_initialization_options(params.initialization_options)
        for hook in server.initialize_hooks:
            hook(params)

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        # After the initialize response, not before: the import would only delay it.
        server.warm_up()
        await _refresh(server)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configuration_changed(params: types.DidChangeConfigurationParams) -> None:
        if _can_ask(server):
            await _refresh(server)
        elif isinstance(params.settings, Mapping):
            server.settings.apply_configuration(params.settings.get(SECTION))
            server.notify_settings_changed()


def _can_ask(server: HolodeckServer) -> bool:
    workspace = server.client_capabilities.workspace
    return bool(workspace and workspace.configuration)


async def _refresh(server: HolodeckServer) -> None:
    if not _can_ask(server):
        return
    try:
        values = await server.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
        )
    except Exception as error:  # a client that fails the request keeps the defaults
        log.warning("workspace/configuration failed: %s", error)
        return
    if values:
        server.settings.apply_configuration(values[0])
        server.notify_settings_changed()
