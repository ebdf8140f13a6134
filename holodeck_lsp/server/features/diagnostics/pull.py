"""Pull diagnostics: `textDocument/diagnostic` and `workspace/diagnostic`.

Registered only when `initializationOptions.diagnostics` is "pull" or "both", so a client that
supports both models does not show every fault twice. Result ids are digests of the reported
diagnostics: a client sending the id it holds gets an `unchanged` report when nothing differs.
An open document's last check is reused when it is for the current version; anything else is
checked now (fast pass, off the event loop). `workspace/diagnostic` covers every agent.yaml /
*.agent.yaml under the workspace folders, plus their includes. An open agent's report carries
the items other features contribute (the last run's `holodeck-run` results); when those change
the client is asked to pull again (`workspace/diagnostic/refresh`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.index import uri_to_path
from holodeck_lsp.server.features.diagnostics.conversion import result_id
from holodeck_lsp.server.features.diagnostics.engine import DiagnosticsEngine
from holodeck_lsp.server.features.diagnostics.publishing import CheckResult

IDENTIFIER = "holodeck"

DocumentReport = (
    types.RelatedFullDocumentDiagnosticReport | types.RelatedUnchangedDocumentDiagnosticReport
)
WorkspaceReport = (
    types.WorkspaceFullDocumentDiagnosticReport | types.WorkspaceUnchangedDocumentDiagnosticReport
)


class PullDiagnostics:
    def __init__(self, server: HolodeckServer, engine: DiagnosticsEngine) -> None:
        self.server = server
        self.engine = engine

    async def result_for(self, agent_uri: str) -> CheckResult | None:
        opened = self.server.workspace.text_documents.get(agent_uri)
        cached = self.engine.results.get(agent_uri)
        if opened is not None and cached is not None and cached.version == opened.version:
            return cached
        analysis = await self.engine.check(agent_uri, slow=False)
        return None if analysis is None else self.engine.accept(agent_uri, analysis)

    async def items_for(self, uri: str) -> tuple[list[types.Diagnostic], list[CheckResult]]:
        is_agent = self.engine.is_agent(uri)
        agents = [uri] if is_agent else sorted(self.engine.agents_including(uri))
        results = [r for r in await asyncio.gather(*map(self.result_for, agents)) if r]
        items = [item for result in results for item in result.by_uri.get(uri, [])]
        opened = self.server.workspace.text_documents.get(uri)
        if opened is not None and results:
            version = results[0].version if is_agent else opened.version
            items += self.engine.contributed(uri, version)
        return items, results

    async def document(self, params: types.DocumentDiagnosticParams) -> DocumentReport:
        uri = params.text_document.uri
        items, results = await self.items_for(uri)
        related: dict[str, types.FullDocumentDiagnosticReport] = {}
        for result in results:
            for other, other_items in result.by_uri.items():
                if other != uri:
                    related[other] = types.FullDocumentDiagnosticReport(
                        items=other_items, result_id=result_id(other_items)
                    )
        current = result_id(items)
        if params.previous_result_id == current:
            return types.RelatedUnchangedDocumentDiagnosticReport(
                result_id=current, related_documents=related or None
            )
        return types.RelatedFullDocumentDiagnosticReport(
            items=items, result_id=current, related_documents=related or None
        )

    async def workspace(
        self, params: types.WorkspaceDiagnosticParams
    ) -> types.WorkspaceDiagnosticReport:
        previous = {entry.uri: entry.value for entry in params.previous_result_ids}
        loop = asyncio.get_running_loop()
        files = await loop.run_in_executor(self.engine.executor, _agent_files, self._roots())
        agent_uris = sorted({self.engine.uri_for(path) for path in files} | self.engine.open_agents)
        results = [r for r in await asyncio.gather(*map(self.result_for, agent_uris)) if r]
        by_uri: dict[str, list[types.Diagnostic]] = {}
        for result in results:
            for uri, items in result.by_uri.items():
                by_uri.setdefault(uri, []).extend(items)
            agent = result.agent_uri
            by_uri.setdefault(agent, []).extend(self.engine.contributed(agent, result.version))
        reports: list[WorkspaceReport] = []
        for uri in sorted(by_uri):
            items = by_uri[uri]
            current = result_id(items)
            opened = self.server.workspace.text_documents.get(uri)
            version = opened.version if opened is not None else None
            if previous.get(uri) == current:
                reports.append(
                    types.WorkspaceUnchangedDocumentDiagnosticReport(
                        uri=uri, version=version, result_id=current
                    )
                )
            else:
                reports.append(
                    types.WorkspaceFullDocumentDiagnosticReport(
                        uri=uri, version=version, items=items, result_id=current
                    )
                )
        return types.WorkspaceDiagnosticReport(items=reports)

    def _roots(self) -> list[Path]:
        roots = [uri_to_path(folder.uri) for folder in self.server.workspace.folders.values()]
        found = [root for root in roots if root is not None]
        if not found and self.server.workspace.root_path:
            found.append(Path(self.server.workspace.root_path))
        return found


def _agent_files(roots: Sequence[Path]) -> list[Path]:
    from holodeck_lsp.checker.discovery import find_agent_files

    existing = [root for root in roots if root.exists()]
    return find_agent_files(existing) if existing else []


def register(server: HolodeckServer, engine: DiagnosticsEngine) -> None:
    def on_initialize(params: types.InitializeParams) -> None:
        if server.settings.diagnostics == "push":
            return
        pull = PullDiagnostics(server, engine)
        options = types.DiagnosticOptions(
            identifier=IDENTIFIER, inter_file_dependencies=True, workspace_diagnostics=True
        )

        @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, options)
        async def document(params: types.DocumentDiagnosticParams) -> DocumentReport:
            return await pull.document(params)

        @server.feature(types.WORKSPACE_DIAGNOSTIC)
        async def workspace(
            params: types.WorkspaceDiagnosticParams,
        ) -> types.WorkspaceDiagnosticReport:
            return await pull.workspace(params)

    server.initialize_hooks.append(on_initialize)
