"""τ²-bench's domains behind this suite's tools and grader (written by `holodeck-lsp import
tau2`; docs/importing-tau2.md). Not part of holodeck-lsp: it runs from the suite's folder.

tau2_bench/ is a trimmed τ²-bench checkout: τ²'s own code in src/tau2 (MIT: LICENSE, NOTICE
there) and the chosen tasks, policies and databases in data/, in τ²'s own layout. The
environments are built here as τ²'s `get_environment()` builds them, but from this folder's
data: τ²'s module-level paths point at the data of whichever copy of its code was imported
first in the process (two suites, or a test and a suite, may share one process).

How a tool finds its case's database: holodeck-lsp runs every case inside a fresh `CaseScope`
(holodeck_lsp.runner.agent_code.case_scope), which every tool call of that case sees and no
other case does. The first call of a case builds the domain's environment from a fresh copy
of the database and sets it to the task's initial state, as τ²'s orchestrator does; the
environment lives in the scope until the case ends. Outside a holodeck-lsp run (upstream
HoloDeck, a script) there is no scope: wrap the calls in `bound_case(name)`.

A case's name is `<domain>_<task id>` (`retail_0`, `mock_create_task_1`).
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import itertools
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE / "tau2_bench"
DATA = CHECKOUT / "data" / "tau2" / "domains"
#: Per domain: τ²'s environment class, its toolkits and databases (module:Class) and the
#: database files they load (as each domain's get_environment does).
ENVIRONMENTS = {
    "retail": (
        "tau2.environment.environment:Environment",
        (
            "tau2.domains.retail.tools:RetailTools",
            "tau2.domains.retail.data_model:RetailDB",
            "db.json",
        ),
        None,
    ),
    "airline": (
        "tau2.environment.environment:Environment",
        (
            "tau2.domains.airline.tools:AirlineTools",
            "tau2.domains.airline.data_model:FlightDB",
            "db.json",
        ),
        None,
    ),
    "telecom": (
        "tau2.domains.telecom.environment:TelecomEnvironment",
        (
            "tau2.domains.telecom.tools:TelecomTools",
            "tau2.domains.telecom.data_model:TelecomDB",
            "db.toml",
        ),
        (
            "tau2.domains.telecom.user_tools:TelecomUserTools",
            "tau2.domains.telecom.user_data_model:TelecomUserDB",
            "user_db.toml",
        ),
    ),
    "mock": (
        "tau2.environment.environment:Environment",
        ("tau2.domains.mock.tools:MockTools", "tau2.domains.mock.data_model:MockDB", "db.json"),
        (
            "tau2.domains.mock.user_tools:MockUserTools",
            "tau2.domains.mock.user_data_model:MockUserDB",
            "user_db.json",
        ),
    ),
}
#: The key of this suite's environment in a case scope's `state`.
STATE_KEY = f"tau2:{HERE}"

_lock = threading.Lock()
_tasks: dict[str, dict[str, Any]] = {}
_call_ids = itertools.count(1)
_bound: contextvars.ContextVar[Any] = contextvars.ContextVar(f"tau2_bound_{id(HERE)}", default=None)


def tau2_module(name: str) -> Any:
    """A module of the vendored τ² code (tau2_bench/src on the path; τ²'s logging off)."""
    with _lock:
        source = str(CHECKOUT / "src")
        if source not in sys.path:
            sys.path.insert(0, source)
        try:  # τ² logs at import (its data folder, a missing .env); not this suite's output
            from loguru import logger

            logger.disable("tau2")
        except ImportError:
            pass
        return importlib.import_module(name)


def split_case_name(case_name: str | None) -> tuple[str, str]:
    """(domain, task id) of a case named `<domain>_<task id>`."""
    domain, _, task_id = (case_name or "").partition("_")
    if domain not in ENVIRONMENTS or not task_id:
        raise LookupError(
            f"case {case_name!r} names no τ² task: a case's name is `<domain>_<task id>` "
            f"(domains {', '.join(ENVIRONMENTS)}), as `holodeck-lsp import tau2` wrote it"
        )
    return domain, task_id


def _named(reference: str) -> Any:
    module_name, _, attribute = reference.partition(":")
    return getattr(tau2_module(module_name), attribute)


def task(case_name: str | None) -> Any:
    """The τ² `Task` of a case, from tau2_bench/data (τ²'s Task model)."""
    domain, task_id = split_case_name(case_name)
    with _lock:
        loaded = _tasks.get(domain)
    if loaded is None:
        task_model = _named("tau2.data_model.tasks:Task")
        raw = _named("tau2.utils:load_file")(str(DATA / domain / "tasks.json"))
        loaded = {t.id: t for t in (task_model.model_validate(item) for item in raw)}
        with _lock:
            _tasks[domain] = loaded
    found = loaded.get(task_id)
    if found is None:
        raise LookupError(f"no {domain} task {task_id!r} in {DATA / domain / 'tasks.json'}")
    return found


def _toolkit(spec: tuple[str, str, str] | None, domain: str) -> Any:
    if spec is None:
        return None
    toolkit, database, file_name = spec
    return _named(toolkit)(_named(database).load(str(DATA / domain / file_name)))


def new_environment(domain: str, the_task: Any = None) -> Any:
    """The domain's environment on a fresh copy of its database (as its get_environment
    builds it; the policy is the agent's instructions, not needed here), set to the task's
    initial state (τ²'s orchestrator and evaluator do the same: Environment.set_state)."""
    environment_class, tools, user_tools = ENVIRONMENTS[domain]
    environment = _named(environment_class)(
        domain_name=domain,
        policy="",
        tools=_toolkit(tools, domain),
        user_tools=_toolkit(user_tools, domain),
    )
    initial = getattr(the_task, "initial_state", None)
    if initial is not None:
        environment.set_state(
            initialization_data=initial.initialization_data,
            initialization_actions=initial.initialization_actions,
            message_history=initial.message_history or [],
        )
    return environment


def tool_call(name: str, arguments: Mapping[str, Any], requestor: str = "assistant") -> Any:
    """A τ² ToolCall (an id of its own: τ² pairs calls and results by id)."""
    message = tau2_module("tau2.data_model.message")
    return message.ToolCall(
        id=f"call_{next(_call_ids)}", name=name, arguments=dict(arguments), requestor=requestor
    )


def respond(environment: Any, name: str, arguments: Mapping[str, Any]) -> str:
    """One agent tool call on `environment`, answered as τ² answers the agent: the tool's
    result as JSON text, or `Error: ...` (Environment.get_response)."""
    return str(environment.get_response(tool_call(name, arguments)).content)


def plain(value: Any) -> Any:
    """Read-only containers (a grader context's) as plain lists and dicts."""
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def bare_name(tool_name: str) -> str:
    """The function a tool name stands for, whatever the backend's prefix:
    `tools-get_order_details` (Semantic Kernel), `mcp__tools__get_order_details` (Claude)."""
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
    """Run tool calls as case `name` (fresh database) outside a holodeck-lsp run."""
    token = _bound.set(_Bound(name))
    try:
        yield _bound.get()
    finally:
        _bound.reset(token)


def scope() -> Any:
    """The running case's scope (or the `bound_case` stand-in)."""
    bound = _bound.get()
    if bound is not None:
        return bound
    try:  # by name, not a static import: this file must also load without holodeck-lsp
        scopes = importlib.import_module("holodeck_lsp.runner.agent_code.case_scope")
    except ImportError:
        scopes = None
    found = scopes.current_case() if scopes is not None else None
    if found is None:
        raise RuntimeError(
            "τ² tools keep one database per test case and this call belongs to none: run the "
            "suite with holodeck-lsp, or wrap the calls in tau2_state.bound_case(NAME)"
        )
    return found


def case_environment(case: Any) -> Any:
    """The case's environment, built on its first use (a tool call or the grader)."""
    with case.lock:
        environment = case.state.get(STATE_KEY)
        if environment is None:
            domain, _ = split_case_name(case.name)
            environment = new_environment(domain, task(case.name))
            case.state[STATE_KEY] = environment
        return environment


def call(domain: str, name: str, arguments: Mapping[str, Any]) -> str:
    """A tool call of the running case, on its own environment."""
    case = scope()
    case_domain, _ = split_case_name(case.name)
    if case_domain != domain:
        raise LookupError(
            f"{domain} tool {name} called in case {case.name!r} of domain {case_domain}: "
            f"give the case the tools of its own domain (tools_{case_domain}.py)"
        )
    environment = case_environment(case)
    with case.lock:
        return respond(environment, name, plain(arguments))
