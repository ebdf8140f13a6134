"""Resolving `type: code` metric graders (`grader: "module.path:callable"`).

HoloDeck resolves a grader when it loads the config: with the agent's folder first on
`sys.path` it does `importlib.import_module(module)`, `getattr(module, name)` and checks
`callable(...)`. We report the same faults two ways:

* `resolve_graders_static` (the default) never runs user code, because the editor opens
  untrusted repositories. It finds the module file like the import system would and reads its
  top-level definitions with `ast`. Whatever it cannot decide (compiled modules, star imports,
  module `__getattr__`, files with syntax errors) counts as resolved: no false alarms.
* `resolve_graders_trusted` is for workspaces the user has declared trusted: it really imports
  the modules, but in one child process with a timeout, so a hanging, crashing or exiting
  module cannot take the language server with it. This process never imports user modules.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO, Any

from holodeck_lsp.config.python_source.bindings import Callability
from holodeck_lsp.config.python_source.module_names import ModuleNames, top_level_names
from holodeck_lsp.config.python_source.module_search import (
    ModuleKind,
    ModuleLocation,
    ModuleSearch,
    default_search_dirs,
    list_modules,
    search_module,
)
from holodeck_lsp.config.suggestions import closest
from holodeck_lsp.schema.codes import Code

#: The form HoloDeck's schema requires of a grader path.
GRADER_PATH = re.compile(r"^[\w.]+:[\w_]+$")


@dataclass(frozen=True, slots=True)
class GraderProblem:
    """Why a grader path does not resolve; `message` says what is wrong and how to fix it."""

    code: Code
    message: str


def parse_grader_path(spec: str) -> tuple[str, str] | None:
    """Split `module.path:callable` into its two halves, or None if it is malformed."""
    if not GRADER_PATH.match(spec):
        return None
    module, _, attribute = spec.partition(":")
    return module, attribute


def _bad_path(spec: str) -> GraderProblem:
    # The schema reports this too (HD130); answering for every spec keeps the result total.
    return GraderProblem(
        Code.BAD_GRADER_PATH,
        f"grader '{spec}' is not of the form 'module.path:callable_name'",
    )


# --------------------------------------------------------------------------------------------
# Static resolution
# --------------------------------------------------------------------------------------------


def resolve_graders_static(
    specs: Iterable[str], agent_dir: Path, search_dirs: Sequence[Path] | None = None
) -> dict[str, GraderProblem | None]:
    """Check each grader path without importing anything; None means it resolves (or cannot be
    decided statically). `search_dirs` defaults to `default_search_dirs(agent_dir)`: the agent's
    folder, then this process's `sys.path` directories, then (for top-level names only) this
    process's import finders, which see editable installs.
    """
    agent_dir = agent_dir.absolute()
    dirs = default_search_dirs(agent_dir) if search_dirs is None else list(search_dirs)
    return {
        spec: _check_static(spec, agent_dir, dirs, use_meta_path=search_dirs is None)
        for spec in dict.fromkeys(specs)
    }


def _check_static(
    spec: str, agent_dir: Path, dirs: Sequence[Path], *, use_meta_path: bool
) -> GraderProblem | None:
    parsed = parse_grader_path(spec)
    if parsed is None:
        return _bad_path(spec)
    module, attribute = parsed
    search = search_module(module, dirs, use_meta_path=use_meta_path)
    if search.location is None:
        return _py_suffix_problem(module, attribute) or _module_not_found(search, agent_dir)
    return _check_attribute(spec, search.location, attribute)


def _py_suffix_problem(module: str, attribute: str) -> GraderProblem | None:
    """`graders.py:fn` is a common slip: a file name where a module name belongs."""
    if not module.endswith(".py") or module == ".py":
        return None
    return GraderProblem(
        Code.GRADER_MODULE_NOT_FOUND,
        f"module '{module}' not found: the grader names a file, not a module; "
        f"write '{module.removesuffix('.py')}:{attribute}'",
    )


def _module_not_found(search: ModuleSearch, agent_dir: Path) -> GraderProblem:
    missing = search.missing or search.module
    tail = missing.rpartition(".")[2]
    if search.reason is not None:
        what = search.reason
    elif search.parent is None:
        where = _describe_dirs(search.searched, "more directories on sys.path")
        what = f"no {tail}.py or {tail}/ in {where}"
    else:
        where = _describe_dirs(search.searched, "more directories")
        what = f"package '{search.parent.name}' has no {tail}.py or {tail}/ (looked in {where})"
    if search.parent is None:
        candidates = list_modules(agent_dir)
        fix = f"create {agent_dir / tail}.py or fix the module path"
    else:
        candidates = sorted({name for d in search.parent.search_path for name in list_modules(d)})
        fix = "fix the module path"
    return GraderProblem(
        Code.GRADER_MODULE_NOT_FOUND,
        f"module '{search.module}' not found: {what}; " + _did_you_mean(tail, candidates, fix),
    )


def _describe_dirs(dirs: Sequence[Path], more: str) -> str:
    if not dirs:
        return "no directories"
    if len(dirs) <= 2:
        return " and ".join(str(d) for d in dirs)
    return f"{dirs[0]} and {len(dirs) - 1} {more}"


def _check_attribute(spec: str, location: ModuleLocation, attribute: str) -> GraderProblem | None:
    if location.kind is ModuleKind.NAMESPACE:
        return _namespace_attribute(location, attribute)
    source = location.source_path
    if source is None:
        return None  # compiled, builtin or frozen: only an import could tell
    names = top_level_names(source)
    binding = names.lookup(attribute)
    if binding is None:
        submodule = _submodule_problem(spec, location, attribute)
        return submodule or _attribute_missing_static(location, attribute, names)
    if binding.callability is Callability.NOT_CALLABLE:
        what = _with_article(binding.description)
        defined_at = f"{source}:{binding.line + 1}"
        return _not_callable(spec, attribute, what, f"defined at {defined_at}")
    return None


def _namespace_attribute(location: ModuleLocation, attribute: str) -> GraderProblem | None:
    if attribute.startswith("__") and attribute.endswith("__"):
        return None
    folders = " and ".join(str(p) for p in location.search_path)
    return GraderProblem(
        Code.GRADER_ATTRIBUTE_MISSING,
        f"module '{location.name}' has no attribute '{attribute}' (looked in {folders}: a folder "
        f"without __init__.py defines no functions); point the grader at a module file, e.g. "
        f"'{location.name}.<module>:{attribute}'",
    )


def _submodule_problem(spec: str, location: ModuleLocation, attribute: str) -> GraderProblem | None:
    """`pkg:sub` where `sub` is a submodule: `getattr` finds nothing, or a module at best."""
    if location.kind is not ModuleKind.PACKAGE:
        return None
    if not any(attribute in list_modules(d) for d in location.search_path):
        return None
    return GraderProblem(
        Code.GRADER_ATTRIBUTE_MISSING,
        f"module '{location.name}' has no attribute '{attribute}' (looked in {location.path}); "
        f"'{attribute}' is a submodule, not a callable: write '{location.name}.{attribute}:"
        f"<function>' instead of '{spec}'",
    )


def _attribute_missing_static(
    location: ModuleLocation, attribute: str, names: ModuleNames
) -> GraderProblem:
    candidates = [
        name
        for name, binding in names.bindings.items()
        if binding.callability is not Callability.NOT_CALLABLE
    ]
    suggestion = closest(attribute, candidates) or closest(attribute, list(names.bindings))
    return _attribute_missing(location.name, attribute, str(location.path), suggestion)


def _attribute_missing(
    module: str, attribute: str, looked_in: str, suggestion: str | None
) -> GraderProblem:
    fix = f"define '{attribute}' there or fix the grader path"
    return GraderProblem(
        Code.GRADER_ATTRIBUTE_MISSING,
        f"module '{module}' has no attribute '{attribute}' (looked in {looked_in}); "
        + (f"did you mean '{suggestion}'?" if suggestion else fix),
    )


def _not_callable(spec: str, attribute: str, what: str, where: str) -> GraderProblem:
    return GraderProblem(
        Code.GRADER_NOT_CALLABLE,
        f"grader '{spec}' is not callable: '{attribute}' is {what} ({where}); "
        "point the grader at a function or class",
    )


def _did_you_mean(word: str, candidates: Sequence[str], fix: str) -> str:
    suggestion = closest(word, candidates)
    return f"did you mean '{suggestion}'?" if suggestion else fix


def _with_article(description: str) -> str:
    if description[:1].isupper():  # "None", "Ellipsis"
        return description
    return ("an " if description[:1] in "aeiou" else "a ") + description


# --------------------------------------------------------------------------------------------
# Trusted resolution: a real import, in a child process
# --------------------------------------------------------------------------------------------

_PROBE_FILE = Path(__file__).with_name("_grader_probe.py")
_SUMMARY_LIMIT = 300


@cache
def _probe_source() -> str:
    return _PROBE_FILE.read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True)
class _ChildOutcome:
    returncode: int | None = None
    timed_out: bool = False
    start_error: str | None = None
    stderr: str = ""


def resolve_graders_trusted(
    specs: Iterable[str],
    agent_dir: Path,
    timeout: float = 10.0,
    *,
    python: str | Path | None = None,
) -> dict[str, GraderProblem | None]:
    """Check each grader path by importing it as HoloDeck would, in one child process.

    The child runs `python` (default: this interpreter) with the agent's folder as working
    directory and first on `sys.path`. `timeout` bounds the whole run: graders not resolved by
    then get GRADER_IMPORT_FAILED, and the child (with anything it spawned) is killed.
    """
    agent_dir = agent_dir.absolute()
    ordered = list(dict.fromkeys(specs))
    valid = [spec for spec in ordered if parse_grader_path(spec) is not None]
    probed = _probe(valid, agent_dir, timeout, str(python or sys.executable)) if valid else {}
    return {spec: probed[spec] if spec in probed else _bad_path(spec) for spec in ordered}


def _probe(
    specs: list[str], agent_dir: Path, timeout: float, python: str
) -> dict[str, GraderProblem | None]:
    with tempfile.TemporaryDirectory(prefix="holodeck-graders-") as tmp:
        results_file = Path(tmp) / "results.jsonl"
        command = [python, "-B", "-X", "faulthandler", "-c", _probe_source()]
        command += [str(results_file), str(agent_dir), *specs]
        outcome = _run_child(command, agent_dir, timeout)
        records = _read_records(results_file)
    summary = _stderr_summary(outcome.stderr, agent_dir)
    return _Report(agent_dir, python, timeout, outcome, summary).interpret(specs, records)


def _run_child(command: list[str], cwd: Path, timeout: float) -> _ChildOutcome:
    try:
        # A session of its own, so a timeout kills whatever the module spawned as well.
        process = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=os.name == "posix",
        )
    except OSError as exc:
        return _ChildOutcome(start_error=f"could not start {command[0]} in {cwd}: {exc}")
    assert process.stderr is not None
    stderr = _TailReader(process.stderr)
    stderr.start()
    timed_out = False
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        if process.poll() is None:  # timed out, or we were interrupted: never leave it running
            _kill(process)
            process.wait()
    # Something the module spawned may still hold the pipe open: do not wait for it long.
    stderr.join(timeout=1.0)
    return _ChildOutcome(process.returncode, timed_out, stderr=stderr.text())


class _TailReader(threading.Thread):
    """Drains a pipe, keeping only its last `limit` bytes: a module may print without pause
    until the timeout, and neither memory nor disk should pay for that."""

    def __init__(self, pipe: IO[bytes], limit: int = 64 * 1024) -> None:
        super().__init__(name="grader-probe-stderr", daemon=True)
        self.pipe = pipe
        self.limit = limit
        self.buffer = bytearray()
        self.lock = threading.Lock()

    def run(self) -> None:
        with self.pipe:
            while chunk := os.read(self.pipe.fileno(), 65536):
                with self.lock:
                    self.buffer += chunk
                    del self.buffer[: -self.limit]

    def text(self) -> str:
        with self.lock:
            return self.buffer.decode("utf-8", errors="replace")


def _kill(process: subprocess.Popen[bytes]) -> None:
    if sys.platform != "win32":
        try:
            os.killpg(process.pid, signal.SIGKILL)
            return
        except (ProcessLookupError, PermissionError):
            pass
    process.kill()


def _read_records(path: Path) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for line in _read_text(path).splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a line cut short by a kill
        if isinstance(record, dict) and isinstance(record.get("spec"), str):
            records.append(record)
    return records


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _stderr_summary(stderr: str, agent_dir: Path) -> str | None:
    """The most telling line of the child's stderr: a fatal error (with the agent file it
    happened in, from the faulthandler traceback), else the last line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return None
    fatal = next((line for line in lines if line.startswith("Fatal Python error")), None)
    if fatal is None:
        return lines[-1][:_SUMMARY_LIMIT]
    frame = re.compile(r'File "(' + re.escape(str(agent_dir)) + r'[^"]*)", line (\d+)')
    where = next((m for line in lines if (m := frame.search(line))), None)
    summary = f"{fatal} at {where[1]}:{where[2]}" if where else fatal
    return summary[:_SUMMARY_LIMIT]


@dataclass(frozen=True, slots=True)
class _Report:
    """Turns the child's records and fate into one problem (or None) per grader."""

    agent_dir: Path
    python: str
    timeout: float
    outcome: _ChildOutcome
    stderr_summary: str | None

    def interpret(
        self, specs: Sequence[str], records: Sequence[Mapping[str, Any]]
    ) -> dict[str, GraderProblem | None]:
        finished = {r["spec"]: r for r in records if r.get("status") != "started"}
        started = [r["spec"] for r in records if r.get("status") == "started"]
        in_progress = started[-1] if started and started[-1] not in finished else None
        return {
            spec: self.from_record(spec, finished[spec])
            if spec in finished
            else self.unfinished(spec, in_progress)
            for spec in specs
        }

    def from_record(self, spec: str, record: Mapping[str, Any]) -> GraderProblem | None:
        module, _, attribute = spec.partition(":")
        status = record.get("status")
        detail = str(record.get("detail") or "")
        looked_in = str(record.get("file") or f"namespace package '{module}'")
        if status == "ok":
            return None
        if status == "module_not_found":
            return _py_suffix_problem(module, attribute) or self.module_not_found(
                module, detail, record.get("missing")
            )
        if status == "import_error":
            return GraderProblem(
                Code.GRADER_MODULE_NOT_FOUND, f"importing module '{module}' failed: {detail}"
            )
        if status == "attribute_missing":
            suggestion = record.get("suggestion")
            suggestion = suggestion if isinstance(suggestion, str) else None
            return _attribute_missing(module, attribute, looked_in, suggestion)
        if status == "not_callable":
            what = _with_article(str(record.get("type") or "object"))
            return _not_callable(spec, attribute, what, f"looked in {looked_in}")
        if status == "attribute_error":
            return GraderProblem(
                Code.GRADER_IMPORT_FAILED,
                f"reading '{attribute}' from module '{module}' raised {detail}",
            )
        return GraderProblem(
            Code.GRADER_IMPORT_FAILED,
            f"importing module '{module}' for grader '{spec}' raised {detail or 'an error'}; "
            "fix the module so that importing it succeeds",
        )

    def module_not_found(self, module: str, detail: str, missing: object) -> GraderProblem:
        if not isinstance(missing, str) or module == missing or module.startswith(missing + "."):
            fix = "fix the module path"
            if "." not in module:
                fix += f" or create {self.agent_dir / module}.py"
            message = (
                f"module '{module}' not found ({detail}; looked in {self.agent_dir} first, then "
                f"on the Python path of {self.python}); {fix}"
            )
        else:
            # The grader's module exists; something it imports does not.
            message = (
                f"module '{module}' was found but importing it failed: {detail}; install "
                f"'{missing.partition('.')[0]}' in the Python environment HoloDeck runs with "
                f"(checked with {self.python})"
            )
        return GraderProblem(Code.GRADER_MODULE_NOT_FOUND, message)

    def unfinished(self, spec: str, in_progress: str | None) -> GraderProblem:
        """A grader without a result: the child never started, hung, or died."""
        if self.outcome.start_error is not None:
            return GraderProblem(
                Code.GRADER_IMPORT_FAILED,
                f"grader '{spec}' not checked: {self.outcome.start_error}",
            )
        cause = self.cause()
        if in_progress == spec:
            module = spec.partition(":")[0]
            advice = (
                "does it block at import time?"
                if self.outcome.timed_out
                else "a module must not exit or crash while being imported"
            )
            message = f"importing module '{module}' for grader '{spec}' failed: {cause}; {advice}"
        elif in_progress is not None:
            message = f"grader '{spec}' not checked: {cause} while importing grader '{in_progress}'"
        else:
            message = f"grader '{spec}' not checked: {cause} before reporting any result"
        return GraderProblem(Code.GRADER_IMPORT_FAILED, message)

    def cause(self) -> str:
        if self.outcome.timed_out:
            return f"import timed out after {self.timeout:g}s"
        code = self.outcome.returncode
        if code is not None and code < 0:
            try:
                ended = f"the Python process was killed by {signal.Signals(-code).name}"
            except ValueError:
                ended = f"the Python process was killed by signal {-code}"
        else:
            ended = f"the Python process exited with code {code}"
        return f"{ended} ({self.stderr_summary})" if self.stderr_summary else ended
