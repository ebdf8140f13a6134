"""`holodeck-lsp __case-names [--] PATH…`: the test case names of the agent files at PATH,
for the completion scripts (`--case NAME`). Hidden: not in --help; people use `completion`.

Each name is followed by a NUL byte — the one character a name cannot hold — so names with
spaces, quotes, `$(…)` or newlines reach the shell as data; the scripts quote them for their
shell. Fast and harmless, since it runs on every Tab: the names come from the YAML alone —
the parse the loader makes (`parse_yaml`: `${VAR}` substituted, the last duplicate key wins,
`<<` merges) and the loader's rule for where the cases are (`read_suite`) — without the
schema, so pydantic is never imported, nothing of the project is imported or run, and no
network is used. Files that do not parse, or paths that do not exist, give no names and no
message: completion must never print into the user's command line. A file that parses but
does not validate (a wrong type in some field, an unknown key) still gives its string names:
the loader would reject it, but its names are what a user fixing the file types
(tests/cli/test_case_names_equivalence.py: for every file that loads, the names are the
loader's). A name holding a secret (a `${VAR}` value, an API key of this environment, a
value of a credential key of the file — the values a run masks) is left out rather than
shown: `runner/secrets.py` `data_secrets` and `environment_secrets`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from holodeck_lsp.checker.file_reading import read_file_text
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
    from holodeck_lsp.checker.discovery import PathsNotFoundError, find_agent_files

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
        try:
            found = _names_in(file)
        except Exception:  # a bug here must not print a traceback into the command line
            continue
        for name in found:
            if name not in seen:
                seen.add(name)
                yield name


def _names_in(file: Path) -> list[str]:
    from holodeck_lsp.runner.secrets import Redactor, data_secrets, environment_secrets

    suite = read_suite(file, os.environ)
    if suite is None:
        return []
    names = [
        case["name"]
        for case in suite.cases
        if isinstance(case, dict) and isinstance(case.get("name"), str) and case["name"].strip()
    ]
    if not names:
        return []
    secrets = [*data_secrets(suite.data), *environment_secrets(os.environ, suite.files)]
    redactor = Redactor(secrets)
    return [name for name in names if redactor.text(name) == name]


@dataclass(frozen=True, slots=True)
class Suite:
    #: The list of test cases as parsed (items of any kind).
    cases: list[Any]
    #: The parsed data of the agent file and of its include, when it has one.
    data: list[Any]
    #: The files read: the agent file, and the include the loader would read.
    files: list[Path]


def read_suite(file: Path, env: Mapping[str, str]) -> Suite | None:
    """The test cases of agent file `file` from its YAML alone, found where the loader finds
    them: the agent's `test_cases:` list (the last duplicate key wins, `<<` merges count:
    `parse_yaml` builds the data as the loader does, `${VAR}` substituted from `env`), else
    its `test_cases_file` include (relative to the agent's folder; a list, or a mapping with
    its own `test_cases:`; an empty-ish file is no cases). None when the file does not parse
    or has no list of cases."""
    data = _parsed(file, env)
    if not isinstance(data, dict):  # not a mapping, or no YAML at all (_UNPARSED)
        return None
    files = [file]
    if "test_cases" in data:  # the loader ignores the include then (the schema flags both)
        cases = data["test_cases"]
        return Suite(cases, [data], files) if isinstance(cases, list) else None
    reference = data.get("test_cases_file")
    if not isinstance(reference, str) or not reference.strip():
        return None
    include = Path(reference)
    include = include if include.is_absolute() else file.parent / include
    files.append(include)
    included = _parsed(include, env)
    if included is _UNPARSED:
        return None
    # As HoloDeck: any empty-ish include (`{}`, `false`, `[]`, nothing) means no cases.
    cases = included if included else []
    if isinstance(cases, dict) and "test_cases" in cases:
        cases = cases["test_cases"]
    return Suite(cases, [data, included], files) if isinstance(cases, list) else None


class _Unparsed:
    """A file that cannot be read, or holds no YAML node (a syntax error; only comments)."""


_UNPARSED = _Unparsed()


def _parsed(file: Path, env: Mapping[str, str]) -> Any:
    from holodeck_lsp.checker.yaml_document import parse_yaml

    try:
        text = read_file_text(file, "utf-8-sig", yaml=True)
    except (OSError, UnicodeDecodeError):
        return _UNPARSED
    document = parse_yaml(text, env)
    return _UNPARSED if document.root is None else document.value
