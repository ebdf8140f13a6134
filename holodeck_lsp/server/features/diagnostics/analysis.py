"""One check of one agent, as the server needs it: runs in a worker thread, never on the event
loop. Besides the diagnostics it keeps the text every range refers to (the agent's buffer and
the include files as read from disk), to convert positions and to anchor grader verdicts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from holodeck_lsp.checker.diagnostics import Diagnostic
from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.server.documents.index import path_key
from holodeck_lsp.server.documents.size_limit import too_large, too_large_diagnostic

if TYPE_CHECKING:
    from holodeck_lsp.checker.loader import LoadOptions, LoadResult
    from holodeck_lsp.checker.yaml_document import YamlDocument
    from holodeck_lsp.schema.agent import Agent


@dataclass(frozen=True, slots=True)
class Analysis:
    agent_path: Path
    #: The document version checked; None for a file read from disk.
    version: int | None
    #: Graders were imported (server/trust.py allowed it: the slow pass of a trusted workspace).
    graders_imported: bool
    diagnostics: list[Diagnostic]
    #: path_key -> text, for the agent and every file it depends on that could be read.
    texts: dict[str, str]
    #: Files the agent depends on (its test_cases_file, config.yaml files).
    dependencies: list[Path]
    #: The checker's parse of the agent text, reused by hover / outline / definition.
    document: YamlDocument | None = None
    #: The validated agent; None when the file has errors.
    agent: Agent | None = None
    #: The checker's whole result, for the next check of the edited buffer to re-use.
    checked: LoadResult | None = None


def analyse(
    path: Path,
    text: str | None,
    version: int | None,
    options: LoadOptions,
    previous: LoadResult | None = None,
) -> Analysis:
    """Check `text` as the agent at `path` (`None`: read it from disk) with `options`, which
    only `server/trust.py` makes. `previous` is the check of an earlier version of the same
    buffer: its unchanged test cases are re-used."""
    # Imported here, in the worker: the checker (pydantic models) is the server's heaviest import.
    from holodeck_lsp.checker.loader import load_agent_file, load_agent_text

    if text is not None and too_large(text):  # not composed: memory stays bounded
        return Analysis(
            path, version, False, [too_large_diagnostic(path, text)], {path_key(path): text}, []
        )
    if text is None:
        result = load_agent_file(path, options=options)
        text = _read(path) or ""
    else:
        result = load_agent_text(text, path, options, previous)
    texts = {path_key(path): text}
    for dependency in result.dependencies:
        dependency_text = _read(dependency)
        if dependency_text is not None:
            texts[path_key(dependency)] = dependency_text
    return Analysis(
        path,
        version,
        options.trusted,  # graders_imported: the options' one meaning of trust
        result.diagnostics,
        texts,
        result.dependencies,
        result.document,
        result.agent,
        result,
    )


def by_file(analysis: Analysis, diagnostics: list[Diagnostic]) -> dict[str, list[Diagnostic]]:
    """`diagnostics` (the analysis's own, or merged with grader verdicts) by the `path_key` of
    the file each belongs to: the agent first, then every YAML include it read — an include
    without faults gets an empty list, which clears what was published for it before. An
    include whose path holds a secret gets none: its faults are the agent's
    (`secret_includes`)."""
    from holodeck_lsp.server.features.diagnostics.secret_includes import (
        moved_to_agent,
        secret_files,
    )

    files = {path_key(d) for d in analysis.dependencies} | {path_key(d.file) for d in diagnostics}
    secret = secret_files(analysis.agent_path, analysis.texts, files)
    diagnostics = moved_to_agent(diagnostics, secret, analysis.agent_path, analysis.document)
    grouped: dict[str, list[Diagnostic]] = {path_key(analysis.agent_path): []}
    for dependency in analysis.dependencies:
        if (
            dependency.suffix in (".yaml", ".yml")
            and dependency.name not in ("config.yaml", "config.yml")
            and path_key(dependency) not in secret
        ):
            grouped.setdefault(path_key(dependency), [])
    for diagnostic in diagnostics:
        grouped.setdefault(path_key(diagnostic.file), []).append(diagnostic)
    return grouped


def _read(path: Path) -> str | None:
    try:
        return read_file_text(path, "utf-8-sig", yaml=True)  # as the loader reads it
    except (OSError, UnicodeDecodeError):
        return None
