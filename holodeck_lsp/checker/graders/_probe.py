"""The child-process half of trusted grader resolution (see `trusted.resolve_graders_trusted`).

Run as `python -B -c <this file's source> RESULTS_FILE AGENT_DIR SPEC...`: it imports each
grader's module the way HoloDeck does (agent folder first on `sys.path`, `import_module`,
`getattr`, `callable`) and appends one JSON object per line to RESULTS_FILE. A `started` line is
written before each import so the parent can tell which grader was being imported if the
process dies or hangs.

It is executed from source rather than with `-m` so that no `holodeck_lsp` package (and
nothing it imports) is loaded next to user code, and so that our own directory never lands on
`sys.path` where a user's `import diagnostics` could pick up our files. Standard library only.
"""

from __future__ import annotations

import difflib
import importlib
import json
import os
import sys
from typing import Any

_MAX_DETAIL = 500


def main(argv: list[str]) -> None:
    results_path, agent_dir, *specs = argv
    # Results go to a file of our own, written with os.write: whatever the user's modules print
    # (or however they rebind sys.stdout) cannot interleave with the protocol.
    fd = os.open(results_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    dumps, write = json.dumps, os.write

    def emit(record: dict[str, Any]) -> None:
        write(fd, (dumps(record) + "\n").encode("utf-8"))

    # Mirror HoloDeck: the agent's folder goes first on sys.path (`-c` put '' there instead).
    if sys.path and sys.path[0] == "":
        del sys.path[0]
    sys.path.insert(0, agent_dir)
    for spec in specs:
        emit({"spec": spec, "status": "started"})
        emit(probe(spec))
    # Leave without running the user's atexit handlers or waiting for threads they started.
    os._exit(0)


def probe(spec: str) -> dict[str, Any]:
    """Resolve one `module:attribute` grader path and say what happened."""
    module_name, _, attribute = spec.partition(":")
    record: dict[str, Any] = {"spec": spec}
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        return {**record, "status": "module_not_found", "missing": exc.name, "detail": _text(exc)}
    except ImportError as exc:
        return {**record, "status": "import_error", "detail": _describe(exc)}
    except BaseException as exc:  # user code: SystemExit and KeyboardInterrupt included
        return {**record, "status": "import_failed", "detail": _describe(exc)}
    record["file"] = _module_file(module)
    try:
        value = getattr(module, attribute)
    except AttributeError:
        return {**record, "status": "attribute_missing", "suggestion": _suggest(module, attribute)}
    except BaseException as exc:  # a module-level __getattr__ may raise anything
        return {**record, "status": "attribute_error", "detail": _describe(exc)}
    if not callable(value):
        return {**record, "status": "not_callable", "type": type(value).__name__}
    return {**record, "status": "ok"}


def _module_file(module: object) -> str | None:
    try:
        file = getattr(module, "__file__", None)
    except BaseException:
        return None
    return file if isinstance(file, str) else None


def _suggest(module: object, attribute: str) -> str | None:
    try:
        names = [name for name in dir(module) if not name.startswith("__")]
    except BaseException:
        return None
    matches = difflib.get_close_matches(attribute, names, n=1)
    return matches[0] if matches else None


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {_text(exc)}"


def _text(exc: BaseException) -> str:
    # A user exception's __str__ is user code too.
    try:
        text = str(exc)
    except BaseException:
        text = "<unprintable>"
    return text if len(text) <= _MAX_DETAIL else text[: _MAX_DETAIL - 1] + "…"


if __name__ == "__main__":
    main(sys.argv[1:])
