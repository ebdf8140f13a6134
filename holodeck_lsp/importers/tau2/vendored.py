"""τ²-bench's own code (suite_files/tau2_bench/src, MIT) as the importer uses it: the domains'
tools and their schemas, τ²'s Task model (its defaults, e.g. the reward basis), and the agent's
and the user simulator's prompt templates, read from τ²'s files with `ast` (those modules
import τ²'s LLM client, which is not copied).

The copy is put on `sys.path` as the top-level package `tau2`, as it runs in a suite; an
installed τ²-bench already imported in this process is refused rather than mixed with it.
"""

from __future__ import annotations

import ast
import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.importers.tau2.errors import ImportInputError

SUITE_FILES = Path(__file__).resolve().parent / "suite_files"
SOURCE = SUITE_FILES / "tau2_bench" / "src"
#: The toolkit class of each domain (the agent's tools).
TOOLKITS = {
    "retail": ("tau2.domains.retail.tools", "RetailTools"),
    "airline": ("tau2.domains.airline.tools", "AirlineTools"),
    "telecom": ("tau2.domains.telecom.tools", "TelecomTools"),
    "mock": ("tau2.domains.mock.tools", "MockTools"),
}
#: What τ²'s copied code imports, with the packages that bring them.
NEEDS = {
    "loguru": "loguru",
    "docstring_parser": "docstring-parser",
    "deepdiff": "deepdiff",
    "addict": "addict",
    "toml": "toml",
    "yaml": "PyYAML",
    "dotenv": "python-dotenv",
}


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    #: Parameter -> its JSON Schema (references resolved), in the signature's order.
    parameters: dict[str, dict[str, Any]]
    required: tuple[str, ...]


def module(name: str) -> Any:
    """A module of the copied τ² code."""
    missing = [package for found, package in NEEDS.items() if not _importable(found)]
    if missing:
        raise ImportInputError(
            f"τ²'s code needs {', '.join(missing)}, not installed here: "
            "`pip install 'holodeck-lsp[tau2]'`"
        )
    loaded = sys.modules.get("tau2")
    # A suite's copy of this code is the same code (suites run it from their folder).
    if loaded is not None and "copied (see NOTICE)" not in (loaded.__doc__ or ""):
        raise ImportInputError(
            f"another τ²-bench ({loaded.__file__}) is already imported in this process; run "
            "`holodeck-lsp import tau2` in its own process"
        )
    if str(SOURCE) not in sys.path:
        sys.path.insert(0, str(SOURCE))
    from loguru import logger

    logger.disable("tau2")  # τ² logs its data folder and a missing .env at import
    return importlib.import_module(name)


def _importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def _resolved(schema: Any, definitions: dict[str, Any]) -> Any:
    """The schema with every `$ref` to `#/$defs/...` replaced by its definition (a tool's
    parameter is declared alone, where no `$defs` is), and pydantic's titles dropped."""
    if isinstance(schema, dict):
        reference = schema.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/$defs/"):
            return _resolved(definitions[reference.rsplit("/", 1)[1]], definitions)
        return {
            key: _resolved(value, definitions)
            for key, value in schema.items()
            if key not in {"title", "$defs"}
        }
    if isinstance(schema, list):
        return [_resolved(item, definitions) for item in schema]
    return schema


def tool_specs(domain: str) -> list[ToolSpec]:
    """The domain's agent tools, as τ² shows them to the agent (Tool.openai_schema)."""
    module_name, class_name = TOOLKITS[domain]
    toolkit = getattr(module(module_name), class_name)(None)
    specs: list[ToolSpec] = []
    for name, tool in toolkit.get_tools().items():
        function = tool.openai_schema["function"]
        parameters = function.get("parameters", {})
        definitions = parameters.get("$defs", {})
        properties = {
            key: _resolved(value, definitions)
            for key, value in parameters.get("properties", {}).items()
        }
        required = tuple(parameters.get("required", ()))
        specs.append(ToolSpec(name, str(function.get("description", "")), properties, required))
    return specs


def validated_task(raw: dict[str, Any], where: str) -> Any:
    """τ²'s Task of one record (its defaults filled in)."""
    task_model = module("tau2.data_model.tasks").Task
    try:
        return task_model.model_validate(raw)
    except ValueError as error:
        raise ImportInputError(f"{where}: not a τ² task: {error}") from None


def _constants(relative: str, names: tuple[str, ...]) -> dict[str, str]:
    tree = ast.parse(read_file_text(SOURCE / "tau2" / relative))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in names:
                value = node.value
                # τ² writes them `"""..."""`.strip(): the string is the call's receiver.
                if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
                    value = value.func.value
                found[target.id] = str(ast.literal_eval(value)).strip()
    return found


def agent_prompt(policy: str) -> str:
    """τ²'s LLMAgent system prompt around the domain's policy (agent/llm_agent.py)."""
    constants = _constants("agent/llm_agent.py", ("AGENT_INSTRUCTION", "SYSTEM_PROMPT"))
    return constants["SYSTEM_PROMPT"].format(
        agent_instruction=constants["AGENT_INSTRUCTION"], domain_policy=policy
    )


def user_prompt(guidelines: str, scenario: Any) -> str:
    """τ²'s UserSimulator system prompt: the global guidelines (no runtime persona: its
    placeholder emptied, as τ²'s default PersonaConfig does) and the task's scenario."""
    template = _constants("user/user_simulator.py", ("SYSTEM_PROMPT",))["SYSTEM_PROMPT"]
    return template.format(
        global_user_sim_guidelines_with_persona=guidelines.replace("<PERSONA_GUIDELINES>", ""),
        instructions=str(scenario),
    )
