"""`instructions:` — the agent's system prompt, from a file or inline."""

from __future__ import annotations

from typing import Self

from pydantic import Field, model_validator

from holodeck_lsp.schema.base import NonBlankStr, StrictModel, fault
from holodeck_lsp.schema.codes import Code


class Instructions(StrictModel):
    """Exactly one of `file` or `inline`."""

    file: NonBlankStr | None = Field(
        default=None, description="Prompt file, relative to the agent's folder."
    )
    inline: NonBlankStr | None = Field(default=None, description="The prompt text itself.")

    @model_validator(mode="after")
    def _exactly_one(self) -> Self:
        if self.file and self.inline:
            raise fault(
                Code.INSTRUCTIONS_SOURCE,
                "instructions take `file` or `inline`, not both; remove one",
                at="inline",
            )
        if not self.file and not self.inline:
            raise fault(
                Code.INSTRUCTIONS_SOURCE,
                "instructions need `file: prompt.md` or `inline: <text>`",
            )
        return self
