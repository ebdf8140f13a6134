"""Diagnostics: checked off the event loop, pushed per document with its version.

* didOpen / didSave: a check now; didChange: a check after `debounceMs` of quiet (a newer
  change restarts the wait). The check runs in a worker thread; when it finishes, a result for
  a version that is no longer the document's is dropped.
* Fast pass (every check): graders resolved statically. Slow pass (didOpen / didSave, trusted
  workspaces only): graders imported, in a child process; its verdicts are cached and merged
  into later fast results (see `grader_verdicts`).
* Every diagnostic goes to the URI of its own file: an agent's `test_cases_file` faults are
  published to the include. Includes are read from disk, so edits to an include are checked
  when it is saved.
* didClose clears the document's diagnostics.
* Other features add items to an agent document's own list (`contributors`: the run results
  of `inline_results`), computed on the parse of the very version being published, and may
  ask for it to be published again (`republish`) when their items change. Listeners hear of
  every accepted check (`check_listeners`: re-grading on edit).

Results are also kept for pull requests (`pull.py`), which add the contributed items too.
What the client is sent is `publishing.py`'s job; telling the listeners, `check_listeners.py`'s.
The engine is built by `app.py` before any feature registers, and handed to each feature that
reads or adds diagnostics; `sync.py` feeds it the document events.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.index import (
    DocumentIndex,
    find_including_agents,
    path_key,
    path_to_uri,
    uri_to_path,
)
from holodeck_lsp.server.documents.parsed import parsed_documents
from holodeck_lsp.server.features.diagnostics.analysis import Analysis, analyse, by_file
from holodeck_lsp.server.features.diagnostics.check_listeners import CheckListeners
from holodeck_lsp.server.features.diagnostics.conversion import to_lsp
from holodeck_lsp.server.features.diagnostics.grader_verdicts import GraderVerdicts, merge
from holodeck_lsp.server.features.diagnostics.publishing import CheckResult, DiagnosticsPublisher
from holodeck_lsp.server.trust import code_may_run, load_options

if TYPE_CHECKING:
    from holodeck_lsp.checker.yaml_document import YamlDocument

log = logging.getLogger(__name__)

#: Checks are CPU-bound and hold the GIL most of the time; a few workers are enough to let a
#: slow (trusted) pass and a fast pass overlap.
WORKERS = 4
#: How long a request waits for the check of the text it is about (`settled`).
SETTLE_TIMEOUT_S = 2.0


class DiagnosticsEngine:
    def __init__(self, server: HolodeckServer) -> None:
        self.server = server
        self.index = DocumentIndex()
        self.executor = ThreadPoolExecutor(WORKERS, thread_name_prefix="holodeck-check")
        self.open_agents: set[str] = set()
        self.results: dict[str, CheckResult] = {}
        #: The last check of each open agent, whose parse `check` parses the next edit from.
        self._last_checks: dict[str, Analysis] = {}
        self._fast: dict[str, asyncio.Task[None]] = {}
        self._slow: dict[str, asyncio.Task[None]] = {}
        self._verdicts: dict[str, GraderVerdicts] = {}
        self.publisher = DiagnosticsPublisher(server, self.open_agents, self.results)
        self.contributors = self.publisher.contributors
        #: URI -> the check made before the server started (`server/early_diagnostics.py`),
        #: taken by the didOpen of the same version and text.
        self.prechecked: dict[str, Analysis] = {}
        self.told = CheckListeners(server)
        self.check_listeners = self.told.listeners

    # -- what a document is ------------------------------------------------------------------

    def _open_text(self, uri: str) -> tuple[str, int | None] | None:
        document = self.server.workspace.text_documents.get(uri)
        return None if document is None else (document.source, document.version)

    def is_agent(self, uri: str) -> bool:
        return uri in self.open_agents or self._classify(uri)

    def _classify(self, uri: str) -> bool:
        """Whether `uri` is an agent by the current settings and its text."""
        opened = self._open_text(uri)
        if opened is not None:
            return self.index.is_agent(uri, opened[0], self.server.settings.agent_globs)
        path = uri_to_path(uri)
        if path is None or not path.is_file():
            return False
        try:
            text = read_file_text(path, "utf-8-sig", yaml=True)
        except (OSError, UnicodeDecodeError):
            return False
        return self.index.is_agent(uri, text, self.server.settings.agent_globs)

    def agents_including(self, uri: str) -> set[str]:
        path = uri_to_path(uri)
        if path is None:
            return set()
        agents = self.index.agents_including(path_key(path))
        if not agents:
            agents = {self.uri_for(agent) for agent in find_including_agents(path)}
        return agents

    def uri_for(self, path: str | Path) -> str:
        """The URI the client knows `path` by (an open document's own spelling if open)."""
        key = path_key(path)
        open_uris: list[str] = list(self.server.workspace.text_documents)
        for uri in open_uris:
            open_path = uri_to_path(uri)
            if open_path is not None and path_key(open_path) == key:
                return uri
        return path_to_uri(path)

    # -- events ------------------------------------------------------------------------------

    def opened(self, uri: str) -> None:
        if self.is_agent(uri):
            self.open_agents.add(uri)
            analysis = self._prechecked(uri)
            if analysis is None:
                self.schedule(uri, delay_s=0.0, slow=True)
                return
            # Checked before the server started (server/early_diagnostics.py), and already
            # published: take it now, so that every request after this didOpen sees the version
            # the client has seen; the listeners hear of it once the settings are in.
            self._last_checks[uri] = analysis
            self._take(uri, analysis, slow=False, tell=False, published=True)
            self.told.tell_when_settled(uri, analysis)
            self.schedule(uri, delay_s=0.0, slow=True, fast=False)
        else:
            for agent in self.agents_including(uri):
                self.schedule(agent, delay_s=0.0, slow=True)

    def changed(self, uri: str) -> None:
        if uri in self.open_agents or self.is_agent(uri):
            self.open_agents.add(uri)
            self.schedule(uri, delay_s=self.server.settings.debounce_ms / 1000, slow=False)

    def saved(self, uri: str) -> None:
        if uri in self.open_agents:
            self.schedule(uri, delay_s=0.0, slow=True)
        else:
            for agent in self.agents_including(uri):
                self.schedule(agent, delay_s=0.0, slow=True)

    def closed(self, uri: str) -> None:
        if uri in self.open_agents:
            self.open_agents.discard(uri)
            for tasks in (self._fast, self._slow):
                task = tasks.pop(uri, None)
                if task is not None:
                    task.cancel()
            self._verdicts.pop(uri, None)
            self.results.pop(uri, None)
            self.told.forget(uri)
            self.publisher.withdraw(uri, keep=set())
            self.index.forget(uri)
            self.publisher.publish(uri, [], None)
            return
        if not any(agent in self.open_agents for agent in self.agents_including(uri)):
            self.publisher.include_items.pop(uri, None)
            self.publisher.publish(uri, [], None)

    def settings_changed(self) -> None:
        """The agent globs may have changed: classify every open document again."""
        open_uris: list[str] = list(self.server.workspace.text_documents)
        for uri in open_uris:
            if self._classify(uri):
                slow = uri not in self.open_agents  # newly ours: check it as if just opened
                self.open_agents.add(uri)
                self.schedule(uri, delay_s=0.0, slow=slow)
            elif uri in self.open_agents:
                self.closed(uri)

    # -- checking ----------------------------------------------------------------------------

    def _prechecked(self, uri: str) -> Analysis | None:
        """The check made before the server started of exactly this open document, once."""
        analysis = self.prechecked.pop(uri, None)
        opened = self._open_text(uri)
        if analysis is None or opened is None or analysis.version != opened[1]:
            return None
        path = uri_to_path(uri)
        if path is None or analysis.texts.get(path_key(path)) != opened[0]:
            return None
        # The same text, read from the same bytes twice: make it the very string the
        # workspace holds, which the parse cache requires (`ParsedDocuments.offer`).
        analysis.texts[path_key(path)] = opened[0]
        if analysis.document is not None:
            analysis.document.text = opened[0]
        return analysis

    def schedule(self, uri: str, *, delay_s: float, slow: bool, fast: bool = True) -> None:
        if fast:
            previous = self._fast.pop(uri, None)
            if previous is not None:
                previous.cancel()
            self._fast[uri] = asyncio.ensure_future(self._run(uri, delay_s, slow=False))
        if slow and code_may_run(self.server.settings):
            previous = self._slow.pop(uri, None)
            if previous is not None:
                previous.cancel()
            self._slow[uri] = asyncio.ensure_future(self._run(uri, 0.0, slow=True))

    async def _run(self, uri: str, delay_s: float, *, slow: bool) -> None:
        if delay_s > 0:
            await asyncio.sleep(delay_s)
        try:
            analysis = await self.check(uri, slow=slow)
        except asyncio.CancelledError:
            raise
        except Exception:  # keep the server alive; the log says what happened
            log.exception("checking %s failed", uri)
            return
        if analysis is not None:
            self._take(uri, analysis, slow=slow)

    def _take(
        self,
        uri: str,
        analysis: Analysis,
        *,
        slow: bool,
        tell: bool = True,
        published: bool = False,
    ) -> None:
        """Accept and publish a check of `uri` (dropped if the document moved on since);
        `tell`: and hand it to the check listeners; `published`: see `push`."""
        if slow:
            self._verdicts[uri] = GraderVerdicts.of(analysis)
        if not self._is_current(uri, analysis.version):
            if slow and uri in self.open_agents:
                # Put the new verdicts onto the text the user has now.
                self.schedule(uri, delay_s=0.0, slow=False)
            return
        result = self.accept(uri, analysis)
        if self.publisher.pushing:
            self.push(result, published=published)
        elif slow:
            self.publisher.ask_for_refresh()
        if tell:
            self.told.tell_in_order(uri, analysis)

    async def settled(self, uri: str, timeout_s: float = SETTLE_TIMEOUT_S) -> None:
        """Wait (at most `timeout_s`) for the pending check of the document's current version:
        a request that reads `results` right after didOpen or an edit — code actions after
        the client showed diagnostics published before the server started — would otherwise
        see the previous version's results, or none."""
        task = self._fast.get(uri)
        if task is None or task.done():
            return
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(task), timeout_s)

    async def check(self, uri: str, *, slow: bool) -> Analysis | None:
        """Check the agent at `uri`; `slow`: import its graders if the workspace is trusted
        (`trust.load_options` decides)."""
        path = uri_to_path(uri)
        if path is None:
            return None
        opened = self._open_text(uri)
        text, version = opened if opened is not None else (None, None)
        # The last check of this agent lets the checker re-check only the edited test cases
        # (any earlier version will do: it compares texts and trusts nothing else).
        for closed in self._last_checks.keys() - self.open_agents:
            del self._last_checks[closed]
        last = self._last_checks.get(uri)
        previous = last.checked if last is not None and text is not None else None
        options = load_options(self.server.settings, import_graders=slow)
        loop = asyncio.get_running_loop()
        analysis = await loop.run_in_executor(
            self.executor, analyse, path, text, version, options, previous
        )
        # A text that does not parse has nothing to re-use: keep the last one that did.
        document = analysis.document
        if uri in self.open_agents and document is not None and document.cases is not None:
            self._last_checks[uri] = analysis
        return analysis

    def _is_current(self, uri: str, version: int | None) -> bool:
        opened = self._open_text(uri)
        if opened is None:
            return uri not in self.open_agents and version is None
        return opened[1] == version

    def accept(self, uri: str, analysis: Analysis) -> CheckResult:
        """Merge, group by file, convert and remember one check of the agent at `uri`."""
        diagnostics = analysis.diagnostics
        if not analysis.graders_imported and code_may_run(self.server.settings):
            diagnostics = merge(analysis, self._verdicts.get(uri))
        self.server.redaction.learn(analysis.texts.values())
        self.index.record(uri, analysis.dependencies)
        agent_key = path_key(analysis.agent_path)
        by_uri: dict[str, list[types.Diagnostic]] = {}
        for key, items in by_file(analysis, diagnostics).items():
            target = uri if key == agent_key else self.uri_for(key)
            converter = self.server.converter(analysis.texts.get(key, ""))
            by_uri[target] = [to_lsp(d, converter) for d in items]
        result = CheckResult(uri, analysis.version, by_uri)
        self.results[uri] = result
        if analysis.document is not None:
            parsed_documents(self.server).offer(uri, analysis.version, analysis.document)
        if analysis.checked is not None and analysis.checked.included:
            self._offer_includes(analysis.checked.included)
        return result

    def _offer_includes(self, included: dict[str, YamlDocument]) -> None:
        """Hand the include trees to rename / references (`suite_files`), off the loop: it
        reads each file once to see it is unchanged. The import waits for the first include."""
        from holodeck_lsp.server.documents.suite_files import suite_files

        files = suite_files(self.server)

        def offer() -> None:
            for file, document in included.items():
                files.offer(Path(file), document.text, document.root)

        self.executor.submit(offer)

    # -- publishing (publishing.py) ----------------------------------------------------------

    def push(self, result: CheckResult, *, published: bool = False) -> None:
        self.publisher.push(result, published=published)

    def contributed(self, uri: str, version: int | None) -> list[types.Diagnostic]:
        return self.publisher.contributed(uri, version)

    def republish(self, uri: str) -> None:
        self.publisher.republish(uri)
