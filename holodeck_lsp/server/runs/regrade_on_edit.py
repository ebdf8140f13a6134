"""Re-grading on edit: on every accepted check of a trusted document without errors (a
`CheckListener`), a case whose text changed is re-graded from its recorded answers — this
session's last run of it, else the case in the `cassettePath` cassette — in a few
milliseconds and without calling the model. Its results say "re-graded from transcript"
(`regraded: true` in `holodeck/runResult`). An edited turn `input` no longer matches the
transcript: that turn reports the stale answer. Runs through `run_session` like any run, so
its results are masked the same way.

Quiet, because it happens while the user types: only cases with answers the user asked for
are re-graded — ones run in this session, or found in the cassette the user named in the
`cassettePath` setting (setting it is the opt-in to grade against that recording) — only
when the check found no errors (a half-typed key that does not parse or validate re-grades
nothing), and its failures are published as Information, not Error (`quiet: true` in
`holodeck/runResult`; see `inline_results`). The `regradeOnEdit` setting (default on) turns
it off."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from holodeck_lsp.server import threads
from holodeck_lsp.server.core import import_runner
from holodeck_lsp.server.runs.cassette_setting import RunRefused, SettingsCassette
from holodeck_lsp.server.runs.editor_run import open_session, run_in_worker
from holodeck_lsp.server.runs.state import Runner
from holodeck_lsp.server.runs.worker_thread import RunHandle
from holodeck_lsp.server.trust import code_may_run

if TYPE_CHECKING:
    from holodeck_lsp.runner.cassette import CassetteCase
    from holodeck_lsp.runner.execution.events import CaseRef
    from holodeck_lsp.schema.agent import Agent
    from holodeck_lsp.schema.results import TestResult
    from holodeck_lsp.server.features.diagnostics.analysis import Analysis

log = logging.getLogger("holodeck_lsp.server.runs")


class RegradeOnEdit:
    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self._cassette = SettingsCassette(runner.server)
        self._regrades: set[asyncio.Future[None]] = set()
        self._warmed = False

    def checked(self, uri: str, analysis: Analysis) -> None:
        """A check of the open document's current version was accepted: re-grade each
        edited case whose recorded answers are at hand."""
        from holodeck_lsp.server.runs.run_locations import case_texts

        runner = self.runner
        settings = runner.server.settings
        if not code_may_run(settings):
            return  # nothing is ever run or re-graded (trust restarts the server)
        if not settings.regrade_on_edit:
            # Forget what was seen: turned on again, it starts from the text of that moment.
            runner.graded_texts.pop(uri, None)
            return
        if uri not in runner.answers and not runner.server.settings.cassette_path:
            runner.graded_texts.pop(uri, None)  # no answers to re-grade from
            return
        # The check's own parse of its version (the listener may hear of a check made before
        # the server started only once the document has moved on: its texts are then the
        # first sight every later edit is compared with).
        document = analysis.document
        if document is None or document.root is None:
            return
        # The cases' own text only: cheap on every check (the full locations are not needed).
        texts = case_texts(document.root, document.text)
        graded = runner.graded_texts.get(uri)
        if graded is None:
            runner.graded_texts[uri] = dict(texts)  # first sight: nothing was edited yet
            if not self._warmed:
                self._warmed = True
                threads.start(import_runner, "holodeck-warm-up")
            return
        agent = analysis.agent
        if agent is None or uri in runner.running:
            return  # re-graded on the next good check: the texts still differ then
        records = runner.results.records.get(uri, {})
        transcripts: dict[int, CassetteCase] = {}
        for index, text in texts.items():
            record = records.get(index)
            if graded.get(index) == text or (record is not None and record.case_text == text):
                continue
            graded[index] = text
            transcript = self._transcript(uri, index, agent, analysis.agent_path.parent)
            if transcript is not None:
                transcripts[index] = transcript
        if transcripts:
            task = asyncio.ensure_future(
                self._regrade(uri, agent, analysis.agent_path, texts, transcripts)
            )
            self._regrades.add(task)  # a reference, so the task is not collected early
            task.add_done_callback(self._regrades.discard)

    def _transcript(
        self, uri: str, index: int, agent: Agent, agent_dir: Path
    ) -> CassetteCase | None:
        from holodeck_lsp.runner.cassette import transcript_of

        answered = self.runner.answers.get(uri, {}).get(index)
        if answered is not None:
            return transcript_of(answered, index)
        cassette = self._cassette.get(agent_dir)
        if cassette is None:
            return None
        cases = agent.test_cases or []
        name = cases[index].name if index < len(cases) else None
        found = next((c for c in cassette.cases if name is not None and c.name == name), None)
        if found is None:
            found = next((c for c in cassette.cases if c.index == index), None)
        # Matched here, by name else index: the replay then matches it by index.
        return None if found is None else found.model_copy(update={"name": None, "index": index})

    async def _regrade(
        self,
        uri: str,
        agent: Agent,
        path: Path,
        texts: dict[int, str],
        transcripts: dict[int, CassetteCase],
    ) -> None:
        from holodeck_lsp.runner.cassette import Cassette
        from holodeck_lsp.runner.run_session import RunRequest, Transcript
        from holodeck_lsp.runner.selection import Selection

        runner = self.runner
        # What each case showed when the re-grade began: a run of it that ends first wins.
        stamps = {index: runner.stamp(uri, index) for index in transcripts}
        for index, transcript in transcripts.items():
            request = RunRequest(
                agent,
                path,
                answers=Transcript(Cassette(agent=agent.name, cases=[transcript])),
                selection=Selection(case=index),
                trace=False,  # a re-grade on each edit is no run to trace
            )

            def on_case(ref: CaseRef, result: TestResult) -> None:
                if runner.stamp(uri, ref.index) != stamps.get(ref.index, 0):
                    log.info("re-grade of case %d of %s dropped: a run ended first", ref.index, uri)
                    return
                runner.finished(
                    uri, ref.index, texts.get(ref.index), result, None, True, quiet=True
                )

            try:
                session = await open_session(runner, request)
                await run_in_worker(session, RunHandle(), lambda ref, turn: None, on_case)
            except RunRefused as refused:
                log.info("case %d of %s cannot be re-graded: %s", index, uri, refused)
            except Exception:
                log.exception("re-grading case %d of %s failed", index, uri)
