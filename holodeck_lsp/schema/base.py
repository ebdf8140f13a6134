"""Shared building blocks of the agent.yaml models.

Every model forbids unknown keys, as HoloDeck does. Validators raise `fault(...)`, a pydantic
error that carries one of our stable codes and, optionally, the sibling key the fault belongs
to, so the loader can put the diagnostic on the exact YAML node instead of the whole mapping.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict
from pydantic_core import PydanticCustomError

from holodeck_lsp.schema.codes import Code

#: Context key naming the child key a model-level fault should point at.
AT_KEY = "at"
#: Context key giving the character offset of the fault inside a string value.
OFFSET_KEY = "offset"


def fault(
    code: Code, message: str, at: str | None = None, offset: int | None = None
) -> PydanticCustomError:
    """A validation error with a stable code; `at` names the offending child key, if any,
    and `offset` the position inside the (string) value, e.g. where a regex breaks."""
    context: dict[str, Any] = {AT_KEY: at} if at is not None else {}
    if offset is not None:
        context[OFFSET_KEY] = offset
    # The message is used verbatim: escape braces so pydantic does not treat them as fields.
    template = message.replace("{", "{{").replace("}", "}}")
    return PydanticCustomError(code.value, template, context)


class StrictModel(BaseModel):
    """Base of every agent.yaml model: unknown keys are errors, as in HoloDeck."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def _not_blank(value: str) -> str:
    if not value.strip():
        raise fault(Code.BLANK_STRING, "must not be empty or blank")
    return value


#: A string that must contain something other than white space.
NonBlankStr = Annotated[str, AfterValidator(_not_blank)]


def name_or_mapping(value: Any) -> str | None:
    """Union tag for fields written either as a name or as a mapping (`expected_tools`
    entries, a vectorstore `database:`). Tags look like `<...>` so error paths can drop them."""
    if isinstance(value, str):
        return "<name>"
    if isinstance(value, dict | BaseModel):
        return "<mapping>"
    return None
