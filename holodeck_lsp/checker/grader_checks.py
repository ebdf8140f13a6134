"""Every `type: code` grader must resolve at load time, as in HoloDeck
(docs/checks.md#graders-and-trust).

Untrusted (the default, and any editor workspace not marked trusted): resolved statically —
the module file is found and parsed, never imported. Trusted: imported as HoloDeck does,
in a child process, so a hanging or crashing import cannot take us down.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path as FsPath

from holodeck_lsp.checker.checked_source import CheckedSource
from holodeck_lsp.checker.data_walk import iter_metrics
from holodeck_lsp.checker.diagnostics import Diagnostic, Severity
from holodeck_lsp.checker.graders.static import resolve_graders_static
from holodeck_lsp.checker.graders.trusted import resolve_graders_trusted
from holodeck_lsp.checker.yaml_document import node_range
from holodeck_lsp.schema.metrics import GRADER_PATH


def check_graders(
    sources: Sequence[CheckedSource], agent_dir: FsPath, trusted: bool
) -> list[Diagnostic]:
    uses = [
        (source, path, metric["grader"])
        for source in sources
        for path, metric in iter_metrics(source.data)
        if metric.get("type", "code") == "code"
        and isinstance(metric.get("grader"), str)
        and GRADER_PATH.match(metric["grader"])
        and path[: len(source.prefix)] == source.prefix
    ]
    if not uses:
        return []
    specs = sorted({spec for _, _, spec in uses})
    resolve = resolve_graders_trusted if trusted else resolve_graders_static
    problems = resolve(specs, agent_dir)
    diagnostics: list[Diagnostic] = []
    for source, path, spec in uses:
        problem = problems.get(spec)
        if problem is None:
            continue
        located = source.locate((*path, "grader"))
        diagnostics.append(
            source.diagnostic(
                (*path, "grader"),
                node_range(located.node),
                problem.code,
                problem.message,
                Severity.ERROR,
            )
        )
    return diagnostics
