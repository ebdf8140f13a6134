"""Test cases: legacy single-turn (`input` / `ground_truth` / `expected_tools`) or
multi-turn (`turns:`), with expected tools, argument matchers and file inputs; a multi-turn
case may go on with a simulated user (schema/simulated_user.py)."""

from __future__ import annotations

from typing import Any, Self

from pydantic import Field, field_validator, model_validator

from holodeck_lsp.schema.base import NonBlankStr, StrictModel, fault
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.expected_tools import ExpectedTool as ExpectedTool
from holodeck_lsp.schema.expected_tools import ExpectedToolEntry as ExpectedToolEntry
from holodeck_lsp.schema.messages import no_input_or_turns, too_many, turns_mixed
from holodeck_lsp.schema.metrics import CaseMetric
from holodeck_lsp.schema.simulated_user import SimulatedUser

FILE_TYPES = ("image", "pdf", "text", "excel", "word", "powerpoint", "csv")
MAX_FILES = 10


class FileInput(StrictModel):
    """A file sent with the input (local `path` or remote `url`)."""

    path: str | None = Field(default=None, description="Local file, relative to the agent.")
    url: str | None = Field(default=None, description="Remote file URL.")
    type: str = Field(description="File kind: " + ", ".join(FILE_TYPES) + ".")
    description: str | None = Field(default=None, description="What the file is.")
    pages: list[int] | None = Field(default=None, description="Pages or slides to extract.")
    sheet: str | None = Field(default=None, description="Excel sheet name.")
    range: str | None = Field(default=None, description="Excel cell range, e.g. `A1:E100`.")
    cache: bool | None = Field(default=None, description="Cache a downloaded file.")

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        if value not in FILE_TYPES:
            raise fault(
                Code.INVALID_CHOICE,
                f"file type {value!r} is not one of {', '.join(FILE_TYPES)}",
            )
        return value

    @field_validator("pages")
    @classmethod
    def _positive_pages(cls, value: list[int] | None) -> list[int] | None:
        if value is not None and any(page <= 0 for page in value):
            raise fault(Code.OUT_OF_RANGE, "pages are numbered from 1")
        return value

    @model_validator(mode="after")
    def _one_source(self) -> Self:
        if self.path and self.url:
            raise fault(Code.EXCLUSIVE_FIELDS, "give either `path` or `url`, not both", at="url")
        if not self.path and not self.url:
            raise fault(Code.MISSING_FIELD, "a file needs `path` (local) or `url` (remote)")
        return self


def _at_most_files(value: list[FileInput] | None, where: str) -> list[FileInput] | None:
    if value is not None and len(value) > MAX_FILES:
        raise fault(Code.TOO_MANY_ITEMS, too_many(MAX_FILES, "files", where, len(value)))
    return value


class Turn(StrictModel):
    """One exchange of a multi-turn conversation; turns share one agent session."""

    input: NonBlankStr = Field(description="What the user says in this turn.")
    ground_truth: NonBlankStr | None = Field(
        default=None,
        description='Expected answer for this turn, a string (quote numbers: "25587"). '
        "Metrics that compare text run only on turns that have one.",
    )
    expected_tools: list[ExpectedToolEntry] | None = Field(
        default=None,
        description="Tools the agent must call during this turn (calls in other turns "
        "never count). Names, or objects with `name`, `args`, `count`.",
    )
    files: list[FileInput] | None = Field(
        default=None, description="Files sent with this turn only (at most 10)."
    )
    retrieval_context: list[str] | None = Field(
        default=None, description="Retrieved passages for RAG metrics on this turn."
    )
    evaluations: list[CaseMetric] | None = Field(
        default=None,
        description="Metrics for this turn only; replace the case's and the agent's.",
    )
    turn_config: dict[str, Any] | None = Field(
        default=None,
        description="Free-form data passed to code graders as `ctx.turn_config` "
        "(e.g. `turn_program`).",
    )

    @field_validator("files")
    @classmethod
    def _file_limit(cls, value: list[FileInput] | None) -> list[FileInput] | None:
        return _at_most_files(value, "turn")


#: Single-turn fields a multi-turn case must not also set (they belong on each turn).
LEGACY_FIELDS = ("input", "ground_truth", "expected_tools", "files", "retrieval_context")


class TestCase(StrictModel):
    """A test case: single-turn (`input`) or multi-turn (`turns`), never both."""

    __test__ = False  # not a pytest test class

    name: NonBlankStr | None = Field(
        default=None, description="Case name, used in reports and to select a case to run."
    )
    input: NonBlankStr | None = Field(
        default=None, description="Single-turn prompt. Required unless `turns` is used."
    )
    expected_tools: list[ExpectedToolEntry] | None = Field(
        default=None, description="Single-turn: tools the agent must call."
    )
    ground_truth: NonBlankStr | None = Field(
        default=None,
        description='Single-turn expected answer, a string (quote numbers: "25587").',
    )
    files: list[FileInput] | None = Field(
        default=None, description="Single-turn file inputs (at most 10)."
    )
    retrieval_context: list[str] | None = Field(
        default=None, description="Retrieved passages for RAG metrics."
    )
    evaluations: list[CaseMetric] | None = Field(
        default=None, description="Metrics for this case; replace the agent's `metrics`."
    )
    turns: list[Turn] | None = Field(
        default=None,
        description="Multi-turn conversation, sent in order in one session. Excludes "
        "input, ground_truth, expected_tools, files and retrieval_context at case level.",
    )
    simulated_user: SimulatedUser | None = Field(
        default=None,
        description="A simulated user who goes on with the conversation after the scripted "
        "`turns` (if any): a model with its own instructions writes each next user message. "
        "Extends upstream HoloDeck (docs/simulated-users.md).",
    )

    @field_validator("files")
    @classmethod
    def _file_limit(cls, value: list[FileInput] | None) -> list[FileInput] | None:
        return _at_most_files(value, "test case")

    @field_validator("turns")
    @classmethod
    def _turns_not_empty(cls, value: list[Turn] | None) -> list[Turn] | None:
        if value is not None and not value:
            raise fault(
                Code.EMPTY_TURNS,
                "turns is empty; add at least one `- input: ...` turn, or remove `turns` "
                "and use `input` for a single-turn case",
            )
        return value

    @model_validator(mode="after")
    def _one_shape(self) -> Self:
        if self.turns is not None or self.simulated_user is not None:
            mixed = [name for name in LEGACY_FIELDS if getattr(self, name) is not None]
            if mixed:
                raise fault(Code.TURNS_MIXED_WITH_LEGACY, turns_mixed(mixed), at=mixed[0])
        elif self.input is None:
            raise fault(Code.NO_INPUT_OR_TURNS, no_input_or_turns())
        return self

    @property
    def is_multi_turn(self) -> bool:
        return self.turns is not None

    @property
    def is_simulated(self) -> bool:
        return self.simulated_user is not None
