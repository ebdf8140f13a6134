"""`holodeck-lsp __case-names [--] PATH…`: the test case names of the agent files at PATH,
for the completion scripts (`--case NAME`). Hidden: not in --help; people use `completion`.

Each name is followed by a NUL byte — the one character a name cannot hold — so names with
spaces, quotes, `$(…)` or newlines reach the shell as data; the scripts quote them for their
shell. Fast and harmless, since it runs on every Tab: the project's loader with graders
resolved statically (nothing imported or run, no network), no lints, no global config. Files
that do not load, or paths that do not exist, give no names and no message: completion must
never print into the user's command line. A name holding a secret (a `${VAR}` value, an API
key of this environment — the values a run masks) is left out rather than shown.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from holodeck_lsp.exit_codes import EXIT_OK


def main(argv: Sequence[str]) -> int:
    paths = [arg for arg in argv if arg != "--"]
    out = sys.stdout.buffer
    for name in case_names(paths):
        out.write(name.encode("utf-8", "surrogateescape") + b"\0")
    out.flush()
    return EXIT_OK


def case_names(paths: Sequence[str]) -> Iterator[str]:
    """Names in file order, each once, of every agent file at or under `paths`."""
    from holodeck_lsp.config.discovery import PathsNotFoundError, find_agent_files

    try:
        files = find_agent_files(path for path in paths if path)
    except (PathsNotFoundError, OSError):
        # Some path is still being typed: complete from the ones that exist.
        existing = [path for path in paths if path and Path(path).exists()]
        try:
            files = find_agent_files(existing)
        except (PathsNotFoundError, OSError):
            return
    seen: set[str] = set()
    for file in files:
        for name in _names_in(file):
            if name not in seen:
                seen.add(name)
                yield name


def _names_in(file: Path) -> list[str]:
    from holodeck_lsp.config.loader import LoadOptions, load_agent_file
    from holodeck_lsp.runner.secrets import Redactor, collect_secrets

    # trusted=False: graders are read with `ast`, never imported (see config/graders/).
    options = LoadOptions(trusted=False, global_config=False, lints=False)
    loaded = load_agent_file(file, options=options)
    agent = loaded.agent
    if agent is None or not agent.test_cases:
        return []
    redactor = Redactor(collect_secrets(agent, os.environ, [file, *loaded.dependencies]))
    names = [case.name for case in agent.test_cases if case.name]
    return [name for name in names if redactor.text(name) == name]
