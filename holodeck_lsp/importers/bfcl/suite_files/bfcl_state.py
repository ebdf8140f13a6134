"""BFCL's stateful classes behind this suite's tools and grader (written by `holodeck-lsp
import bfcl`; docs/importing-bfcl.md). Not part of holodeck-lsp: it runs from the suite's folder.

How a tool finds its case's state: holodeck-lsp runs every case inside a fresh `CaseScope`
(holodeck_lsp.runner.agent_code.case_scope), which every tool call of that case sees and no
other case does, whatever `--parallel`, `--repeat` or the model matrix. The first call of a
case creates the instances of the record's `involved_classes` from its `initial_config` (the
record whose id is the case's name, read from data/) and keeps them in the scope, so state
carries over the case's turns and ends with the case. Outside a holodeck-lsp run (upstream
HoloDeck, a script) there is no scope: wrap the calls in `bound_case(name)`.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import importlib
import importlib.util
import inspect
import json
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
#: The class -> module of bfcl_classes/ (BFCL's own code, Apache-2.0: LICENSE, NOTICE there).
MODULES = {
    "GorillaFileSystem": "gorilla_file_system",
    "MathAPI": "math_api",
    "MessageAPI": "message_api",
    "TwitterAPI": "posting_api",
    "TicketAPI": "ticket_api",
    "TradingBot": "trading_bot",
    "TravelAPI": "travel_booking",
    "VehicleControlAPI": "vehicle_control",
}
#: BFCL's STATELESS_CLASSES: created without a scenario.
STATELESS = frozenset({"MathAPI"})
#: Names BFCL refuses to execute (multi_turn_utils), kept so results read the same.
REFUSED = frozenset({"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"})
#: The key of this suite's instances in a case scope's `state`.
STATE_KEY = f"bfcl:{HERE}"

_lock = threading.Lock()
_records: dict[str, dict[str, Any]] | None = None
_classes: dict[str, type] = {}
_bound: contextvars.ContextVar[Any] = contextvars.ContextVar(f"bfcl_bound_{id(HERE)}", default=None)


# ----------------------------------------------------------------------------- records


def records() -> dict[str, dict[str, Any]]:
    """Every record of data/ by id: the question file's fields plus `ground_truth` and
    `category`."""
    global _records
    with _lock:
        if _records is None:
            _records = _read_records()
        return _records


def _json_lines(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def _read_records() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for questions in sorted(DATA.glob("BFCL_v*_multi_turn_*.json")):
        category = questions.stem.split("_multi_turn_", 1)[1]
        truth = {
            r["id"]: r["ground_truth"]
            for r in _json_lines(DATA / "possible_answer" / questions.name)
        }
        for record in _json_lines(questions):
            found[record["id"]] = {
                **record,
                "category": category,
                "ground_truth": truth[record["id"]],
            }
    return found


def record(case_name: str | None) -> dict[str, Any]:
    found = records().get(case_name or "")
    if found is None:
        raise LookupError(
            f"no BFCL record {case_name!r} in {DATA}: a case's name must be its record's id "
            "(as `holodeck-lsp import bfcl` wrote it)"
        )
    return found


# ----------------------------------------------------------------------------- instances


def _class(name: str) -> type:
    """A class of bfcl_classes/, imported once under a name private to this folder (two
    suites' copies never collide in sys.modules)."""
    with _lock:
        if name not in _classes:
            package = f"_bfcl_classes_{abs(hash(HERE)):x}"
            if package not in sys.modules:
                folder = HERE / "bfcl_classes"
                spec = importlib.util.spec_from_file_location(
                    package, folder / "__init__.py", submodule_search_locations=[str(folder)]
                )
                assert spec is not None and spec.loader is not None
                module = importlib.util.module_from_spec(spec)
                sys.modules[package] = module
                spec.loader.exec_module(module)
            _classes[name] = getattr(importlib.import_module(f"{package}.{MODULES[name]}"), name)
        return _classes[name]


def new_instances(entry: Mapping[str, Any]) -> dict[str, Any]:
    """Fresh instances of the record's classes, loaded from its initial_config (as BFCL's
    execute_multi_turn_func_call creates them)."""
    long_context = "long_context" in entry["category"] or "composite" in entry["category"]
    instances: dict[str, Any] = {}
    for name in entry["involved_classes"]:
        instance = _class(name)()
        if name not in STATELESS:
            scenario = copy.deepcopy(entry["initial_config"].get(name, {}))
            instance._load_scenario(scenario, long_context=long_context)
        instances[name] = instance
    return instances


def as_text(value: Any) -> str:
    """A call's result as BFCL records it: strings as they are, dicts as JSON (else str)."""
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except Exception:
            return str(value)
    return str(value)


def execute(
    instances: Mapping[str, Any], name: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> str:
    """One call on `instances`, its result as BFCL's checker would record it."""
    if name in REFUSED:
        return f"Error during execution: Function call {name} is not allowed."
    owner = None
    for instance in instances.values():  # the last class with the method wins, as in BFCL
        method = getattr(instance, name, None)
        if not name.startswith("_") and inspect.ismethod(method):
            owner = method
    if owner is None:
        return f"Error during execution: name '{name}' is not defined"
    # Copies, as BFCL's eval of the call's text makes fresh values: a method keeps the lists
    # it is given (post_tweet's mentions) and later calls change them in place.
    args, kwargs = copy.deepcopy(tuple(args)), copy.deepcopy(dict(kwargs))
    try:
        return as_text(owner(*args, **kwargs))
    except Exception as error:
        return f"Error during execution: {error}"


def state_differences(model: Mapping[str, Any], truth: Mapping[str, Any]) -> dict[str, list[str]]:
    """Class -> the public attributes whose values differ (BFCL's state_checker)."""
    differences: dict[str, list[str]] = {}
    for name, expected in truth.items():
        actual = model[name]
        changed = [
            attr
            for attr in vars(expected)
            if not attr.startswith("_") and getattr(actual, attr) != getattr(expected, attr)
        ]
        if changed:
            differences[name] = changed
    return differences


def plain(value: Any) -> Any:
    """Read-only containers (a grader context's) as plain lists and dicts."""
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def bare_name(tool_name: str) -> str:
    """The function a tool name stands for, whatever the backend's prefix:
    `tools-cd` (Semantic Kernel), `mcp__tools__cd` (Claude), `cd`."""
    for prefix in ("mcp__tools__", "tools-"):
        if tool_name.startswith(prefix):
            return tool_name[len(prefix) :]
    return tool_name


# ----------------------------------------------------------------------------- the case


class _Bound:
    """A stand-in for holodeck-lsp's CaseScope outside a run."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.state: dict[str, Any] = {}
        self.lock = threading.RLock()


@contextlib.contextmanager
def bound_case(name: str) -> Iterator[Any]:
    """Run tool calls as case `name` (fresh state) outside a holodeck-lsp run."""
    token = _bound.set(_Bound(name))
    try:
        yield _bound.get()
    finally:
        _bound.reset(token)


def _scope() -> Any:
    bound = _bound.get()
    if bound is not None:
        return bound
    try:  # by name, not a static import: this file must also load without holodeck-lsp
        scopes = importlib.import_module("holodeck_lsp.runner.agent_code.case_scope")
    except ImportError:
        scopes = None
    scope = scopes.current_case() if scopes is not None else None
    if scope is None:
        raise RuntimeError(
            "BFCL tools keep one state per test case and this call belongs to none: run the "
            "suite with holodeck-lsp, or wrap the calls in bfcl_state.bound_case(NAME)"
        )
    return scope


def call(name: str, arguments: Mapping[str, Any]) -> str:
    """A tool call of the running case: on its instances, created on its first call."""
    scope = _scope()
    with scope.lock:
        instances = scope.state.get(STATE_KEY)
        if instances is None:
            instances = scope.state[STATE_KEY] = new_instances(record(scope.name))
        return execute(instances, name, (), arguments)
