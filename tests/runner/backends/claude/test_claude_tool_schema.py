"""A function tool's JSON schema for the Claude tool server (runner/backends/claude/
tool_schema.py): from the Python signature, with the YAML `parameters` layered on top."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from holodeck_lsp.runner.agent_code.function_tools import LoadedTool, load_function_tools
from holodeck_lsp.runner.backends.claude.tool_schema import parameters_schema
from holodeck_lsp.schema.agent import Agent


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    return tmp_path


def test_parameters_schema_follows_signature_and_yaml(agent_dir: Path) -> None:
    (agent_dir / "more.py").write_text(
        textwrap.dedent(
            """
            from typing import Literal, Optional

            def search(query: str, limit: int = 5, mode: Literal["a", "b"] = "a",
                       tags: list[str] | None = None, flag: Optional[bool] = None, anything=None):
                return []
            """
        )
    )
    agent = Agent.model_validate(
        {
            "name": "x",
            "model": {"provider": "anthropic", "name": "m"},
            "instructions": {"inline": "x"},
            "tools": [
                {
                    "type": "function",
                    "name": "search",
                    "description": "Search",
                    "file": "more.py",
                    "function": "search",
                    "parameters": {"query": {"type": "string", "description": "What to find"}},
                }
            ],
        }
    )
    (tool,) = load_function_tools(agent, agent_dir)
    schema = parameters_schema(tool)
    assert schema["required"] == ["query"]
    properties = schema["properties"]
    assert properties["query"] == {"type": "string", "description": "What to find"}
    assert properties["limit"] == {"type": "integer"}
    assert properties["mode"] == {"enum": ["a", "b"]}
    assert properties["tags"] == {"type": "array", "items": {"type": "string"}}
    assert properties["flag"] == {"type": "boolean"}
    assert properties["anything"] == {}


def _tool(agent_dir: Path, source: str, parameters: dict[str, object] | None = None) -> LoadedTool:
    # A file name per source: a loaded tool module is cached by its file.
    file = f"typed_{abs(hash(source))}.py"
    (agent_dir / file).write_text(textwrap.dedent(source), encoding="utf-8")
    entry: dict[str, object] = {
        "type": "function",
        "name": "fn",
        "description": "A tool",
        "file": file,
        "function": "fn",
    }
    if parameters is not None:
        entry["parameters"] = parameters
    agent = Agent.model_validate(
        {
            "name": "x",
            "model": {"provider": "anthropic", "name": "m"},
            "instructions": {"inline": "x"},
            "tools": [entry],
        }
    )
    (tool,) = load_function_tools(agent, agent_dir)
    return tool


def test_annotated_enums_unions_and_optional_without_default(agent_dir: Path) -> None:
    tool = _tool(
        agent_dir,
        """
        import enum
        from typing import Annotated, Optional

        class Unit(enum.Enum):
            KM = "km"
            MI = "mi"

        def fn(distance: Annotated[float, "How far"], unit: Unit, key: int | str,
               note: Optional[str], pairs: dict[str, int], point: tuple[int, int]):
            return distance
        """,
    )
    schema = parameters_schema(tool)
    assert schema["required"] == ["distance", "unit", "key", "pairs", "point"]  # not `note`
    assert schema["properties"] == {
        "distance": {"type": "number", "description": "How far"},
        "unit": {"enum": ["km", "mi"]},
        "key": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "note": {"type": "string"},
        "pairs": {"type": "object"},
        "point": {"type": "array"},
    }


def test_yaml_extras_reach_kwargs_only(agent_dir: Path) -> None:
    extras = {"a": {"type": "string"}, "extra": {"type": "integer"}}
    with_kwargs = _tool(agent_dir, "def fn(a, *args, **kwargs):\n    return a\n", extras)
    schema = parameters_schema(with_kwargs)
    assert schema["properties"] == {"a": {"type": "string"}, "extra": {"type": "integer"}}
    assert schema["required"] == ["a"]
    without = _tool(agent_dir, "def fn(a):\n    return a\n", extras)
    assert parameters_schema(without)["properties"] == {"a": {"type": "string"}}


def test_unresolvable_annotations_mean_any(agent_dir: Path) -> None:
    tool = _tool(agent_dir, "def fn(a: 'NoSuchType' = None):\n    return a\n")
    assert parameters_schema(tool) == {"type": "object", "properties": {"a": {}}}


def test_a_yaml_required_flag_decides_the_list_and_stays_out_of_the_property(
    agent_dir: Path,
) -> None:
    """HoloDeck's `required: true|false` in a `parameters:` entry is not JSON Schema (there
    `required` is the object's list of names): left in a property, the Claude Code CLI found
    the tool's schema invalid and dropped the tool (an imported BFCL suite's tools, all
    written so, reached the model as the 3 without parameters)."""
    tool = _tool(
        agent_dir,
        "def fn(a, b=1, c=2, **kwargs):\n    return a\n",
        {
            "a": {"type": "string", "required": True},
            "b": {"type": "integer", "required": False},
            "c": {"type": "integer", "required": True},
            "d": {"type": "boolean", "required": True},
            "e": {"type": "boolean"},
        },
    )
    schema = parameters_schema(tool)
    assert schema["properties"] == {
        "a": {"type": "string"},
        "b": {"type": "integer"},
        "c": {"type": "integer"},
        "d": {"type": "boolean"},
        "e": {"type": "boolean"},
    }
    assert schema["required"] == ["a", "c", "d"]
    # A flag that is not a boolean decides nothing: the signature does.
    odd = _tool(agent_dir, "def fn(a):\n    return a\n", {"a": {"type": "string", "required": "x"}})
    assert parameters_schema(odd)["required"] == ["a"]
