"""`simulated_user:` — a test case whose conversation a model playing the user steers.

The simulator has its own pinned model and instructions (persona, goal, what it knows), a
limit on the user messages it may write and stop markers that end the conversation. Checks
apply to every agent turn, to one agent turn by its number, and to the whole conversation once
it ends (docs/simulated-users.md). This extends what upstream HoloDeck loads: `check` reports
every `simulated_user` key with its own code (HD160).
"""

from __future__ import annotations

from pydantic import Field, field_validator

from holodeck_lsp.schema.base import NonBlankStr, StrictModel, fault
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.expected_tools import ExpectedToolEntry
from holodeck_lsp.schema.llm import LLMProvider
from holodeck_lsp.schema.metrics import CaseMetric

#: τ²-bench's markers: the user is done, asks for a human, or the request is out of scope.
DEFAULT_STOP_MARKERS = ("###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###")
DEFAULT_MAX_TURNS = 10
#: More user messages than this is no longer a conversation but a loop.
MAX_SIMULATED_TURNS = 100


class EveryTurnChecks(StrictModel):
    """Checks applied to every agent turn of the conversation, scripted or generated."""

    evaluations: list[CaseMetric] | None = Field(
        default=None,
        description="Metrics for every agent turn; a turn's own `evaluations` (or its "
        "`at_turn` entry's) replace them, and they replace the case's and the agent's.",
    )


class AtTurnChecks(StrictModel):
    """Checks on one agent turn, numbered from 1 over the whole conversation (the scripted
    opening turns first, then the generated ones)."""

    turn: int = Field(
        strict=True,
        description="Which agent turn, 1-based over the whole conversation (scripted turns "
        "count first). A turn the conversation never reaches is reported as not run.",
        json_schema_extra={"minimum": 1},
    )
    ground_truth: NonBlankStr | None = Field(
        default=None, description="Expected answer of that turn, a string."
    )
    expected_tools: list[ExpectedToolEntry] | None = Field(
        default=None,
        description="Tools the agent must call during that turn (names, or objects with "
        "`name`, `args`, `count`).",
    )
    evaluations: list[CaseMetric] | None = Field(
        default=None, description="Metrics for that turn; replace `every_turn`'s."
    )

    @field_validator("turn")
    @classmethod
    def _from_one(cls, value: int) -> int:
        if value < 1:
            raise fault(Code.OUT_OF_RANGE, f"agent turns are numbered from 1 (got {value})")
        return value


class AtEndChecks(StrictModel):
    """Checks on the whole conversation once it has ended."""

    ground_truth: NonBlankStr | None = Field(
        default=None, description="Expected final answer: compared with the agent's last turn."
    )
    expected_tools: list[ExpectedToolEntry] | None = Field(
        default=None,
        description="Tools the agent must have called at some turn of the conversation "
        "(calls of every turn count), with the usual matchers.",
    )
    communicate_info: list[NonBlankStr] | None = Field(
        default=None,
        description="Strings the agent must have said in some turn (τ²-bench's "
        "`communicate_info`: case-insensitive, commas ignored).",
    )
    evaluations: list[CaseMetric] | None = Field(
        default=None,
        description="Metrics on the whole conversation: `type: code` graders (called once, "
        "with every turn's tool calls, inside the case's tool state) and judged ones (goal "
        "completion) that see the whole transcript.",
    )


class SimulatedUser(StrictModel):
    """A model playing the user: it answers what the agent says until it stops."""

    instructions: NonBlankStr = Field(
        description="The simulator's system prompt: persona, goal, what it knows and does "
        "not know. It never sees the agent's tools."
    )
    model: LLMProvider = Field(
        description="The simulator's own model, pinned, written like the agent's `model:` "
        "(provider, name, temperature, …); its failures are the simulator's, not the agent's."
    )
    max_turns: int = Field(
        default=DEFAULT_MAX_TURNS,
        strict=True,
        description=f"User messages the simulator may write (default {DEFAULT_MAX_TURNS}, at "
        f"most {MAX_SIMULATED_TURNS}); still talking after them is the simulator's failure.",
        json_schema_extra={"minimum": 1, "maximum": MAX_SIMULATED_TURNS},
    )
    stop_markers: list[NonBlankStr] = Field(
        default_factory=lambda: list(DEFAULT_STOP_MARKERS),
        description="A simulator message containing one of these ends the conversation (the "
        "message is not sent). Default: " + ", ".join(f"`{m}`" for m in DEFAULT_STOP_MARKERS),
    )
    never_says: list[NonBlankStr] | None = Field(
        default=None,
        description="What the persona must never write (case-insensitive), e.g. what it "
        "does not know: a message containing one breaks persona, the simulator's failure.",
    )
    every_turn: EveryTurnChecks | None = Field(
        default=None, description="Checks applied to every agent turn."
    )
    at_turn: list[AtTurnChecks] | None = Field(
        default=None, description="Checks on single agent turns, by 1-based `turn`."
    )
    at_end: AtEndChecks | None = Field(
        default=None, description="Checks on the whole conversation once it has ended."
    )

    @field_validator("max_turns")
    @classmethod
    def _turn_limit(cls, value: int) -> int:
        if not 1 <= value <= MAX_SIMULATED_TURNS:
            raise fault(
                Code.OUT_OF_RANGE,
                f"max_turns must be between 1 and {MAX_SIMULATED_TURNS} (got {value})",
            )
        return value

    @field_validator("stop_markers")
    @classmethod
    def _some_marker(cls, value: list[str]) -> list[str]:
        if not value:
            raise fault(
                Code.TOO_MANY_ITEMS,
                "stop_markers is empty: the simulator could never end the conversation; "
                "remove the key for the defaults or list at least one marker",
            )
        return value
