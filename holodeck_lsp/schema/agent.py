"""The root of agent.yaml."""

from __future__ import annotations

from typing import Any, Self

from pydantic import Field, field_validator, model_validator

from holodeck_lsp.schema.base import NonBlankStr, StrictModel, fault
from holodeck_lsp.schema.claude import ClaudeConfig
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.deployment import DeploymentConfig
from holodeck_lsp.schema.execution import ExecutionConfig
from holodeck_lsp.schema.instructions import Instructions
from holodeck_lsp.schema.llm import LLMProvider
from holodeck_lsp.schema.messages import (
    SPLIT_SUITE_HINT,
    both_case_sources,
    duplicate_tool,
    too_many,
)
from holodeck_lsp.schema.metrics import EvaluationConfig
from holodeck_lsp.schema.observability import ObservabilityConfig
from holodeck_lsp.schema.openai_agents import OpenAIConfig
from holodeck_lsp.schema.test_case import TestCase
from holodeck_lsp.schema.tools import ToolUnion

MAX_TOOLS = 50
MAX_TEST_CASES = 1000


class Agent(StrictModel):
    """A HoloDeck agent: its model, prompt, tools, metrics and test cases."""

    name: NonBlankStr = Field(description="Agent name.")
    description: NonBlankStr | None = Field(default=None, description="What the agent does.")
    author: NonBlankStr | None = Field(default=None, description="Who maintains it.")
    model: LLMProvider = Field(description="The LLM that runs the agent.")
    instructions: Instructions = Field(description="System prompt: `file` or `inline`.")
    response_format: dict[str, Any] | str | None = Field(
        default=None,
        description="Structured output: an inline JSON Schema mapping or a schema file path.",
    )
    tools: list[ToolUnion] | None = Field(
        default=None,
        description="Tools the agent may call (at most 50, unique names): function, mcp, "
        "vectorstore, prompt, hierarchical_document.",
    )
    evaluations: EvaluationConfig | None = Field(
        default=None, description="Default metrics for every test case."
    )
    test_cases: list[TestCase] | None = Field(
        default=None, description="Test cases (at most 1000). Excludes `test_cases_file`."
    )
    test_cases_file: NonBlankStr | None = Field(
        default=None,
        description="YAML file holding the test cases (a list, or a mapping with "
        "`test_cases:`), relative to this file. Excludes `test_cases`.",
    )
    execution: ExecutionConfig | None = Field(default=None, description="Run settings.")
    observability: ObservabilityConfig | None = Field(
        default=None, description="Telemetry (OpenTelemetry) settings."
    )
    deployment: DeploymentConfig | None = Field(
        default=None, description="Container build and deployment settings."
    )
    embedding_provider: LLMProvider | None = Field(
        default=None,
        description="Embedding model; needed with provider anthropic and vectorstore tools.",
    )
    claude: ClaudeConfig | None = Field(
        default=None, description="Claude Agent SDK settings (provider anthropic)."
    )
    openai: OpenAIConfig | None = Field(
        default=None, description="OpenAI Agents SDK settings (openai / azure_openai)."
    )

    @field_validator("tools")
    @classmethod
    def _tools_limit_and_unique(cls, tools: list[Any] | None) -> list[Any] | None:
        if tools is None:
            return None
        if len(tools) > MAX_TOOLS:
            raise fault(Code.TOO_MANY_ITEMS, too_many(MAX_TOOLS, "tools", "agent", len(tools)))
        seen: dict[str, int] = {}
        for index, tool in enumerate(tools):
            if tool.name in seen:
                raise fault(
                    Code.DUPLICATE_TOOL_NAME,
                    duplicate_tool(tool.name, seen[tool.name]),
                    at=f"[{index}].name",
                )
            seen[tool.name] = index
        return tools

    @field_validator("test_cases")
    @classmethod
    def _case_limit(cls, cases: list[TestCase] | None) -> list[TestCase] | None:
        if cases is not None and len(cases) > MAX_TEST_CASES:
            raise fault(
                Code.TOO_MANY_ITEMS,
                too_many(MAX_TEST_CASES, "test cases", "agent", len(cases), SPLIT_SUITE_HINT),
            )
        return cases

    @model_validator(mode="after")
    def _one_case_source(self) -> Self:
        if self.test_cases is not None and self.test_cases_file is not None:
            raise fault(
                Code.TEST_CASES_AND_FILE,
                both_case_sources(),
                at="test_cases_file",
            )
        return self
