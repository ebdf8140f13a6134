"""Reading the settings from the client: `initializationOptions` on `initialize`, the
`workspace/configuration` section `holodeck` after `initialized` and again on
`workspace/didChangeConfiguration` (see `server/settings.py` for what each value means).

A client that fails the configuration request keeps the values it had: that is logged, not
answered with an error, since the server works on defaults.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.settings import SECTION

log = logging.getLogger(__name__)


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
        try:
            await _refresh(server)
        finally:
            server.settings_were_read()

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
