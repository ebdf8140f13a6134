"""Lints of LLM-judged metrics (upstream HoloDeck accepts these files, and only finds out
while judging):

* HD205 — a `rag` metric that reads `retrieval_context` where no turn it grades has one:
  it is skipped on every such turn, so it never grades anything.
* HD206 (information: it is about this machine, not the file, and a replay needs no
  judge) — a `geval` or `rag` metric while deepeval (the `judges` extra) is not installed:
  a live run reports the metric failed with the install hint.

Each is reported at the metric, with the fix. Raw data, like the other lints, so they show
while the rest of the file is still being written.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Sequence
from typing import Any

from holodeck_lsp.checker.checked_source import CheckedSource
from holodeck_lsp.checker.data_walk import Path, data_at, declared_tools, iter_metrics
from holodeck_lsp.checker.diagnostics import Diagnostic, Severity
from holodeck_lsp.checker.yaml_document import node_range
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.metric_catalogue import RAG_METRICS

_LINT = " (holodeck-lsp lint)"
INSTALL = "pip install 'holodeck-lsp[judges]'"


def judges_extra_installed() -> bool:
    """Is deepeval importable (looked up, not imported: the checker must stay fast)?"""
    return importlib.util.find_spec("deepeval") is not None


def check_judged_metrics(sources: Sequence[CheckedSource], agent_data: Any) -> list[Diagnostic]:
    # An `is_retrieval` MCP server supplies retrieval context upstream: stay quiet then.
    retrieval_tools = any(t.get("is_retrieval") is True for t in declared_tools(agent_data))
    installed: bool | None = None
    diagnostics: list[Diagnostic] = []
    for source in sources:
        for path, metric in iter_metrics(source.data):
            if path[: len(source.prefix)] != source.prefix:
                continue
            kind = metric.get("type")
            if kind not in ("geval", "rag"):
                continue
            if installed is None:
                installed = judges_extra_installed()
            if not installed:
                diagnostics.append(_missing_extra(source, path, kind))
            if kind == "rag" and not retrieval_tools:
                diagnostics.extend(_no_context(source, path, metric, agent_data))
    return diagnostics


def _missing_extra(source: CheckedSource, path: Path, kind: str) -> Diagnostic:
    what = "G-Eval" if kind == "geval" else "RAG"
    located = source.locate((*path, "type"))
    return source.diagnostic(
        (*path, "type"),
        node_range(located.node),
        Code.JUDGES_EXTRA_MISSING,
        f"{what} metrics are judged with deepeval, which is not installed here, so a run "
        f"reports this metric failed; install it: {INSTALL}{_LINT}",
        Severity.INFORMATION,
    )


def _no_context(
    source: CheckedSource, path: Path, metric: dict[str, Any], agent_data: Any
) -> Iterator[Diagnostic]:
    name = metric.get("metric_type")
    spec = RAG_METRICS.get(name) if isinstance(name, str) else None
    if spec is None or not spec.needs_retrieval_context:
        return
    graded = list(_graded_holders(path, agent_data if path[0] == "evaluations" else source.data))
    if not graded or any(holder.get("retrieval_context") for holder in graded):
        return
    where = "any turn it grades"
    if "turns" in path:
        where = "this turn"
    elif path[0] == "test_cases":
        where = "this test case"
    located = source.locate((*path, "metric_type"))
    yield source.diagnostic(
        (*path, "metric_type"),
        node_range(located.node),
        Code.RAG_WITHOUT_CONTEXT,
        f"rag metric {name} reads retrieval_context, and {where} has none, so it is "
        f"skipped and never grades; add `retrieval_context: [...]` (the passages the agent "
        f"retrieved) to the turn{_LINT}",
        Severity.WARNING,
    )


def _graded_holders(path: Path, agent_data: Any) -> Iterator[dict[str, Any]]:
    """The turns (or legacy cases) a metric at `path` grades: the nearest `evaluations`
    wins (turn > case > agent), so a narrower list hides this one."""
    if path[0] == "evaluations":
        cases = data_at(agent_data, ("test_cases",))
        for case in cases if isinstance(cases, list) else []:
            if isinstance(case, dict) and not case.get("evaluations"):
                yield from _turns_of(case)
        return
    holder = data_at(agent_data, path[:-2])
    if not isinstance(holder, dict):
        return
    if "turns" in path:
        yield holder
        return
    yield from _turns_of(holder)


def _turns_of(case: dict[str, Any]) -> Iterator[dict[str, Any]]:
    turns = case.get("turns")
    if not isinstance(turns, list):
        yield case
        return
    for turn in turns:
        if isinstance(turn, dict) and not turn.get("evaluations"):
            yield turn
