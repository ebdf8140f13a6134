"""`holodeck-lsp __models [--valued SPEC] [--describe] -- run WORD…`: what `run --model
PROVIDER:NAME` may take, for the completion scripts — the providers (`openai:`, …, from
schema/providers.py, the list `--model` is checked against), then the models of the `models:`
list `run` would read for the agent files on the line (settings/models_config.py: the project's
holodeck-lsp.yaml beside them, else the user's; this folder when no agent file is typed yet).
Hidden.

Output as `__run-refs`: NUL after each value, `--describe` adds TAB and a description first.
Safe on every Tab: the YAML is only parsed (ruamel's composer, no objects built), nothing is
imported or run. The reader substitutes `${VAR}` references; an entry is offered only as it
is written in the file and without a `${…}`, so no variable's value (a deployment name, a
key) reaches the line, nor a reference the shell would expand there.
Any error prints nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.commands.shell_completion.line_words import Line, read_request
from holodeck_lsp.commands.shell_completion.run_refs import Ref, write_refs
from holodeck_lsp.exit_codes import EXIT_OK
from holodeck_lsp.schema.providers import Provider


def main(argv: Sequence[str]) -> int:
    request = read_request(argv)
    try:
        refs = list(model_names(request.line or Line("run")))
    except Exception:  # any error: completion prints nothing rather than a traceback
        refs = [Ref(f"{provider.value}:", "provider") for provider in Provider]
    write_refs(refs, request.describe)
    return EXIT_OK


def model_names(line: Line) -> Iterator[Ref]:
    for provider in Provider:
        yield Ref(f"{provider.value}:", "provider")
    seen: set[str] = set()
    for ref in _configured(line):
        if ref.value not in seen:
            seen.add(ref.value)
            yield ref


def _configured(line: Line) -> Iterator[Ref]:
    from holodeck_lsp.settings.models_config import ModelsConfigError, configured_models

    providers = {provider.value for provider in Provider}
    for folder in _agent_folders(line):
        try:
            found = configured_models(folder)
        except ModelsConfigError:
            continue
        if found is None:
            continue
        try:
            written = read_file_text(found.source, "utf-8", yaml=True)
        except (OSError, UnicodeDecodeError):
            continue
        for model in found.models:
            provider, colon, name = model.partition(":")
            if (
                colon
                and provider in providers
                and name.strip()
                and model in written
                and "${" not in model  # a reference the shell would expand on the line
                and model.isprintable()
            ):
                yield Ref(model, f"from {found.source.name}")


def _agent_folders(line: Line) -> list[Path]:
    from holodeck_lsp.checker.discovery import find_agent_files

    existing = [path for path in line.positionals if path and Path(path).exists()]
    if not existing:
        return [Path(".")]
    folders: list[Path] = []
    for file in find_agent_files(existing):
        if file.parent not in folders:
            folders.append(file.parent)
    return folders
