"""What an editor run asks the run lifecycle for (runner/lifecycle/): the CLI's run of the
same cases, from the command's arguments and the server's settings.

* Answers: the `cassettePath` cassette (see `cassette_setting`) is replayed; without one, the
  live backend is built with the `holodeck.backends` overrides. A re-grade answers from the
  case's last answers (a transcript) and judges them again.
* A "Run all" is journaled and stored in `.holodeck/runs/` as `holodeck-lsp run` stores a run
  (masked with the run's redactor, pruned to the same retention), so `holodeck-lsp runs` /
  `compare` see it, it becomes the next edit's baseline, and a cancelled one is unfinished:
  `holodeck-lsp run --resume ID` runs the rest. `holodeck.saveRuns: false` turns it off, as
  `--no-save` does.
* "Run case", "Run turn" and re-grades are not stored. A stored run is a run *of the suite*:
  `compare` (previous against latest) would list every case such a partial run left out as
  removed, and `interrupted` means "stopped", not "chosen" — there is no honest way to mark a
  deliberate one-turn run in that history. Their results still count in the editor: they are
  the "current" side of the regression marks (`baseline_sides`).
* Every run but a re-grade counts for `holodeck-lsp run --last-failed`, as every CLI run does
  (a `--case` run too): a re-grade sends nothing to the agent.
* The editor runs the agent's own model: config.yaml's `models:` list is the CLI's matrix.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from holodeck_lsp.server.runs.arguments import RegradeCase, RunArguments
from holodeck_lsp.server.runs.cassette_setting import cassette_path

if TYPE_CHECKING:
    from holodeck_lsp.runner.lifecycle.request import LifecycleRequest
    from holodeck_lsp.schema.results import TestResult
    from holodeck_lsp.server.runs.run_document import RunDocument
    from holodeck_lsp.server.runs.state import Runner

log = logging.getLogger("holodeck_lsp.server.runs")


def editor_request(
    runner: Runner,
    document: RunDocument,
    arguments: RunArguments,
    answered: TestResult | None,
) -> LifecycleRequest:
    """The lifecycle request of a run command. Raises `RunRefused` (a cassette setting that
    names no file)."""
    from holodeck_lsp.runner.cassette import Cassette, transcript_of
    from holodeck_lsp.runner.lifecycle.request import LifecycleRequest

    case, turn = arguments.case_index, arguments.turn
    settings = runner.server.settings
    regrade = isinstance(arguments, RegradeCase)
    transcript = None
    replay = None
    if regrade:
        cases = [transcript_of(answered, case)] if answered is not None and case is not None else []
        transcript = Cassette(agent=document.agent.name, cases=cases)
    else:
        replay = cassette_path(runner.server, document.path.parent)
    return LifecycleRequest(
        document.agent,
        document.path,
        case_index=case,
        turn=turn,
        configured_models=False,
        replay=replay,
        transcript=transcript,
        save=not regrade and case is None and settings.save_runs,
        keep=_keep(),
        count_last_failed=not regrade,
        backend_overrides=settings.backends,
        agent_text=document.agent_text,
    )


def _keep() -> int:
    """Stored runs kept per agent file: $HOLODECK_KEEP_RUNS as the CLI reads it (a bad value
    is logged, and the default kept)."""
    from holodeck_lsp.runner.run_history import DEFAULT_KEEP, keep_setting
    from holodeck_lsp.runner.run_history.retention import KeepSettingError

    try:
        return keep_setting(None)
    except KeepSettingError as error:
        log.warning("%s; keeping %d runs", error, DEFAULT_KEEP)
        return DEFAULT_KEEP
