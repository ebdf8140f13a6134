"""The agent's function tools as SK kernel functions, each call recorded as it runs.

A call's raw return value, duration and exception come from a wrapper around the tool
function, tied to the call id by the session's auto-function-invocation filter through the
`current_call` ContextVar (SK runs each call of one model response in its own task).
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from holodeck_lsp.runner.agent_code.function_tools import LoadedTool
from holodeck_lsp.runner.backends.base import BackendInitError

if TYPE_CHECKING:
    from semantic_kernel.functions import KernelFunction

#: Kernel plugin holding the agent's function tools; the model sees `tools-<name>`.
PLUGIN_NAME = "tools"


@dataclass(slots=True)
class CallRecord:
    """What the tool wrapper saw while running one call."""

    ran: bool = False
    result: Any = None
    error: str | None = None
    duration_ms: int | None = None


#: The record of the tool call running in the current task (set by the invocation filter).
current_call: ContextVar[CallRecord | None] = ContextVar("holodeck_skcurrent_call", default=None)


def as_kernel_function(tool: LoadedTool) -> KernelFunction:
    """The tool as a kernel function: its YAML name and description, parameter names and types
    from the Python signature, the YAML `parameters:` schema merged over the inferred one."""
    from semantic_kernel.functions import KernelFunctionFromMethod, kernel_function
    from semantic_kernel.functions.kernel_parameter_metadata import KernelParameterMetadata

    wrapper = _recording_wrapper(tool.function)
    try:
        kernel_function(wrapper, name=tool.name, description=tool.description or tool.docstring)
        parameters = [
            _with_yaml_schema(KernelParameterMetadata(**spec), tool.parameters)
            for spec in wrapper.__kernel_function_parameters__  # type: ignore[attr-defined]
        ]
        return KernelFunctionFromMethod(wrapper, plugin_name=PLUGIN_NAME, parameters=parameters)
    except Exception as error:
        raise BackendInitError(
            f"tool {tool.name!r}: cannot expose {getattr(tool.function, '__name__', tool.name)}"
            f"{tool.signature} to Semantic Kernel: {type(error).__name__}: {error}"
        ) from error


def _with_yaml_schema(
    parameter: Any, yaml_parameters: dict[str, dict[str, Any]] | None
) -> Any:  # KernelParameterMetadata -> KernelParameterMetadata
    declared = (yaml_parameters or {}).get(parameter.name)
    if not declared:
        return parameter
    schema = {key: value for key, value in declared.items() if key != "required"}
    update: dict[str, Any] = {"schema_data": {**(parameter.schema_data or {}), **schema}}
    if isinstance(declared.get("description"), str):
        update["description"] = declared["description"]
    if isinstance(declared.get("required"), bool):
        update["is_required"] = declared["required"]
    return parameter.model_copy(update=update)


def _recording_wrapper(function: Callable[..., Any]) -> Callable[..., Any]:
    """Call the tool, noting its raw result, duration and exception in the current call record;
    the exception is re-raised so SK reports it to the model as usual."""

    def finish(record: CallRecord | None, started: float) -> None:
        if record is not None:
            record.ran = True
            record.duration_ms = int((time.perf_counter() - started) * 1000)

    def fail(record: CallRecord | None, error: Exception) -> None:
        if record is not None:
            record.error = f"{type(error).__name__}: {error}"

    if inspect.iscoroutinefunction(function):

        async def call_async(**kwargs: Any) -> Any:
            record, started = current_call.get(), time.perf_counter()
            try:
                value = await function(**kwargs)
            except Exception as error:
                fail(record, error)
                raise
            finally:
                finish(record, started)
            if record is not None:
                record.result = value
            return value

        wrapper: Callable[..., Any] = call_async
    else:

        def call(**kwargs: Any) -> Any:
            record, started = current_call.get(), time.perf_counter()
            try:
                value = function(**kwargs)
            except Exception as error:
                fail(record, error)
                raise
            finally:
                finish(record, started)
            if record is not None:
                record.result = value
            return value

        wrapper = call
    # __wrapped__ makes inspect.signature (and so SK) see the tool's own parameters.
    functools.update_wrapper(wrapper, function)
    return wrapper
