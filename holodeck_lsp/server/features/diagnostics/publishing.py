"""Publishing diagnostics to the client: an agent's own list (with what other features
contribute), the items it reports in each include (merged over every open agent that includes
it), withdrawals when an agent stops reporting on an include, and the refresh request that
tells a pull client to ask again. The engine (`engine.py`) decides what was checked; this
module decides what the client sees of it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.parsed import Parsed, parsed_documents

log = logging.getLogger(__name__)

#: Extra diagnostics for an agent document, given its parse for the published version.
Contributor = Callable[[str, Parsed], list[types.Diagnostic]]


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One agent's diagnostics in LSP terms, by the URI they belong to."""

    agent_uri: str
    version: int | None
    by_uri: dict[str, list[types.Diagnostic]]


class DiagnosticsPublisher:
    """What was last published where; `open_agents` and `results` are the engine's own."""

    def __init__(
        self, server: HolodeckServer, open_agents: set[str], results: dict[str, CheckResult]
    ) -> None:
        self.server = server
        self.open_agents = open_agents
        self.results = results
        self.contributors: list[Contributor] = []
        #: include URI -> agent URI -> that agent's diagnostics in the include.
        self.include_items: dict[str, dict[str, list[types.Diagnostic]]] = {}

    @property
    def pushing(self) -> bool:
        return self.server.settings.diagnostics != "pull"

    def push(self, result: CheckResult, *, published: bool = False) -> None:
        """Publish `result`; `published`: its own items are out already (published before the
        server started, server/early_diagnostics.py) — only what the contributors add then
        calls for a publish, so the client does not get the same list twice."""
        agent = result.agent_uri
        for target, items in result.by_uri.items():
            if target == agent:
                if agent in self.open_agents:
                    contributed = self.contributed(agent, result.version)
                    if contributed or not published:
                        self.publish(agent, items + contributed, result.version)
            else:
                self.include_items.setdefault(target, {})[agent] = items
                if not published:
                    self.publish_include(target)
        self.withdraw(agent, keep=set(result.by_uri))

    def contributed(self, uri: str, version: int | None) -> list[types.Diagnostic]:
        """The contributors' items for `version` of the open document at `uri` (none when
        that version's parse is not at hand: the next check publishes them)."""
        if not self.contributors:
            return []
        parsed = parsed_documents(self.server).peek(uri, version)
        if parsed is None:
            return []
        items: list[types.Diagnostic] = []
        for contributor in self.contributors:
            try:
                items.extend(contributor(uri, parsed))
            except Exception:
                log.exception("diagnostics contributor failed for %s", uri)
        return items

    def republish(self, uri: str) -> None:
        """Publish the last check of the open agent (or include) at `uri` again with fresh
        contributions (pull clients are asked to pull again)."""
        if not self.pushing:
            self.ask_for_refresh()
            return
        if uri in self.include_items:
            self.publish_include(uri)
            return
        result = self.results.get(uri)
        if result is not None and uri in self.open_agents:
            items = result.by_uri.get(uri, [])
            self.publish(uri, items + self.contributed(uri, result.version), result.version)

    def withdraw(self, agent: str, keep: set[str]) -> None:
        """Remove `agent`'s diagnostics from includes it no longer reports on."""
        for target, contributions in list(self.include_items.items()):
            if target not in keep and agent in contributions:
                del contributions[agent]
                self.publish_include(target)

    def publish_include(self, target: str) -> None:
        contributions = self.include_items.get(target, {})
        items = [item for agent in sorted(contributions) for item in contributions[agent]]
        if not contributions:
            self.include_items.pop(target, None)
        # Includes are checked as saved on disk: no buffer version to tie the result to.
        document = self.server.workspace.text_documents.get(target)
        if document is not None:
            items += self.contributed(target, document.version)
        self.publish(target, items, None)

    def publish(self, uri: str, items: Iterable[types.Diagnostic], version: int | None) -> None:
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=list(items), version=version)
        )

    def ask_for_refresh(self) -> None:
        workspace = self.server.client_capabilities.workspace
        if workspace and workspace.diagnostics and workspace.diagnostics.refresh_support:
            self.server.workspace_diagnostic_refresh(None)
