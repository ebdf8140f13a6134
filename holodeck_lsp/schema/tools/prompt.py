"""`type: prompt` — a tool the LLM answers from a prompt template."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field, field_validator, model_validator

from holodeck_lsp.schema.base import fault
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.tools.base import ToolBase
from holodeck_lsp.schema.tools.catalogue import tool_type_doc


class PromptTool(ToolBase):
    """A tool answered by the LLM from a prompt template."""

    type: Literal["prompt"] = Field(
        default="prompt",
        description=tool_type_doc("prompt"),
    )
    template: str | None = Field(
        default=None,
        description="The prompt template, inline. Give exactly one of `template` and `file`.",
    )
    file: str | None = Field(
        default=None,
        description="File holding the prompt template, relative to agent.yaml. Give exactly "
        "one of `template` and `file`.",
    )
    parameters: dict[str, dict[str, Any]] = Field(
        min_length=1,
        description="The tool's parameters: a mapping of name to definition (type, "
        "description, ...). Required, with at least one entry.",
    )
    model: dict[str, Any] | None = Field(
        default=None, description="Model settings overriding the agent's `model:` for this tool."
    )

    @field_validator("template", "file")
    @classmethod
    def _not_blank_if_given(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise fault(Code.BLANK_STRING, "must not be blank; fill it in or remove the key")
        return value

    @model_validator(mode="after")
    def _template_xor_file(self) -> Self:
        if self.template and self.file:
            raise fault(
                Code.EXCLUSIVE_FIELDS,
                "give either `template:` or `file:`, not both",
                at="file",
            )
        if not self.template and not self.file:
            raise fault(
                Code.EXCLUSIVE_FIELDS,
                "a prompt tool needs its prompt: add `template:` (inline) or `file:` (a path)",
            )
        return self
