"""`holodeck.conversation [uri, {"case": N, "model"?, "repeat"?, "beside"?}]`: one case of the
document's last run as its conversation in Markdown text (reports/run/conversation_text), what
Neovim's `:HoloDeckConversation` and Emacs's `holodeck-conversation` show in a buffer
(docs/reports.md, "Conversation as text").

`case` is the case's index in the suite (the `caseIndex` of its Run case lens); `model` and
`repeat` choose a session of a model matrix or a `--repeat` run; `beside` puts another side
under each turn: `"baseline"` — the case in the baseline run the editor's compare uses
(`baseline_sides`: the `holodeck.baseline` setting, else the stored run before head) — or
another model of the same run.

Answers `{"status": "done", "markdown", "case"}` (the case's name) or `{"status": "none",
"reason"}`: no run of the document yet, no such case in it, nothing to compare with. Like the
report page (`report_page`), the text is masked with the run's redactor before it leaves the
server; beside the baseline, with the redactor of the compare command (`baseline_masking`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final, TypeGuard

from holodeck_lsp.server.documents.index import uri_to_path
from holodeck_lsp.server.runs.arguments import BadArguments
from holodeck_lsp.server.runs.regressions import base_name, regressions_of

if TYPE_CHECKING:
    from holodeck_lsp.schema.comparison import Comparison
    from holodeck_lsp.schema.results import TestReport
    from holodeck_lsp.server.runs.state import Runner

CONVERSATION: Final = "holodeck.conversation"
BASELINE: Final = "baseline"
NO_RUN: Final = (
    "no run of this file in this session yet: run the case first "
    "(its Run case lens, :HoloDeckRun case, or the Run case code action)"
)


@dataclass(frozen=True, slots=True)
class Conversation:
    command: ClassVar[str] = CONVERSATION
    uri: str
    case: int
    model: str | None = None
    repeat: int | None = None
    beside: str | None = None

    @classmethod
    def parse(cls, arguments: Sequence[Any]) -> Conversation:
        command = cls.command
        if not arguments or not isinstance(arguments[0], str):
            raise BadArguments(f"{command}: the document uri (argument 1) must be a string")
        options = arguments[1] if len(arguments) > 1 else None
        if not isinstance(options, dict):
            raise BadArguments(
                f'{command}: options (argument 2) must be an object such as {{"case": 0}}, '
                f"got {options!r}"
            )
        case = options.get("case")
        repeat = options.get("repeat")
        if not _integer(case) or case < 0:
            raise BadArguments(f"{command}: case must be the case's index (0, 1, …), got {case!r}")
        if repeat is not None and (not _integer(repeat) or repeat < 1):
            raise BadArguments(f"{command}: repeat must be 1 or more, got {repeat!r}")
        model, beside = options.get("model"), options.get("beside")
        for name, value in (("model", model), ("beside", beside)):
            if value is not None and not isinstance(value, str):
                raise BadArguments(
                    f'{command}: {name} must be a string ("baseline" or a model), got {value!r}'
                )
        return cls(arguments[0], case, model, repeat, beside or None)


def _integer(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


async def conversation(runner: Runner, arguments: Conversation) -> dict[str, str]:
    from holodeck_lsp.reports.run.conversation_text import NoSuchCase, find_case, render

    uri = arguments.uri
    report = runner.reports.get(uri)
    if report is None:
        return {"status": "none", "reason": NO_RUN}
    beside: tuple[str, TestReport] | str | None = arguments.beside
    redactor = runner.redactors.get(uri)
    if arguments.beside == BASELINE:
        from holodeck_lsp.server.runs.baseline_masking import redactor_of

        # Stored runs were masked with their own run's secrets: masked again with today's.
        redactor = await redactor_of(runner, uri)
        view = await regressions_of(runner).view(uri)
        baseline = await _baseline_side(runner, uri, view.comparison, view.reason)
        if isinstance(baseline, str):
            return {"status": "none", "reason": redactor.text(baseline)}
        beside = baseline
    masked = redactor.text if redactor is not None else _same
    choice: dict[str, Any] = {"model": arguments.model, "repeat": arguments.repeat}
    try:
        case = find_case(report, arguments.case, **choice)
        text = render(report, arguments.case, beside=beside, **choice)
    except NoSuchCase as missing:
        return {"status": "none", "reason": masked(str(missing))}
    return {"status": "done", "markdown": masked(text), "case": masked(case.name)}


def _same(text: str) -> str:
    return text


async def _baseline_side(
    runner: Runner, uri: str, comparison: Comparison | None, reason: str | None
) -> tuple[str, TestReport] | str:
    """(label, report) of the baseline run the compare command uses, or why there is none."""
    agent_uri = runner.agent_of(uri)
    agent_path = uri_to_path(agent_uri) if agent_uri is not None else None
    if comparison is None or agent_path is None:
        return f"nothing to show beside this run: {reason or 'no baseline run'}"
    run_id = comparison.base.run_id
    if run_id is None:
        return "the baseline is not a stored run"
    found = await asyncio.to_thread(_stored_report, agent_path, run_id)
    if isinstance(found, str):
        return found
    return f"baseline {base_name(comparison)}", found


def _stored_report(agent_path: Path, run_id: str) -> TestReport | str:
    """The stored run's report (read once per process, `baseline_sides.read_report`)."""
    from holodeck_lsp.runner.run_history import RunNotFound, RunUnreadable, resolve, runs_folder
    from holodeck_lsp.server.runs.baseline_sides import read_report

    try:
        return read_report(resolve(run_id, runs_folder(agent_path), agent_path.name))
    except (RunNotFound, RunUnreadable) as error:
        return str(error)
