"""The cassette file format (docs/cassettes.md), version 6:

    {"format": "holodeck-cassette", "version": 2, "agent": str,
     "cases": [{"name": str|null, "index": int,
                "turns": [{"input": str, "response": str|null,
                           "tool_calls": [{"name": str, "args": {...}, "result": any,
                                           "error": str|null, "raw_arguments": str|null,
                                           "call_problem": str|null}],
                           "token_usage": {"prompt_tokens": int, "completion_tokens": int,
                                           "total_tokens": int}|null,
                           "error": str|null, "errored": bool, "duration_ms": int,
                           "tool_limit_reached": int|null,
                           "judgements": [{"metric": str, "kind": str, "input": str,
                                           "model": str, "score": float|null,
                                           "reason": str|null, "error": str|null,
                                           "errored": bool, "token_usage": {...}|null,
                                           "latency_ms": int, "calls": int}]}]}]}

Version 2 added `judgements` (what the LLM judges said about the turn); a version 1 file
is read as a cassette without judgements. Version 4 added `errored`: the turn's `error` was
the provider's (429 after the retry budget, 5xx, connection lost), so a replay reports it
errored, not failed, as the recorded run did; older files read as `errored: false`.
Version 5 added the judgements' `errored`: the judge's `error` was its provider's, so a
replay reports the metric (and a turn failing on nothing else) errored; older files read as
`errored: false`.
Version 6 added what the tool loop did (docs/running.md, "Tool loop"): each call's
`raw_arguments` (the text the model sent) and `call_problem` (why it could not run; `error`
is what the model was given), and the turn's `tool_limit_reached`; older files read them as
null.
Version 7 added a case's `simulated_user` (docs/simulated-users.md, "Record and replay"):
the simulator's model and prompt fingerprint, how many turns were scripted (the turns' inputs
after them are the simulator's messages), its last message (the one that ended the
conversation, never sent) and its failure; null for a scripted case and in older files.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from holodeck_lsp.checker.json_reading import read_json_file
from holodeck_lsp.runner.backends.base import BackendError
from holodeck_lsp.schema.results import CallProblem, TokenUsage, ToolInvocation

FORMAT: Final = "holodeck-cassette"
VERSION: Final = 7
#: The version a cassette without a simulated-user case is written as (nothing of 7 in it).
WITHOUT_SIMULATION: Final = 6
#: Versions this holodeck-lsp reads (1: before judgements were recorded).
READABLE_VERSIONS: Final = (1, 2, 3, 4, 5, 6, 7)
#: How a judged metric without a usable recording starts its error (not a verdict).
STALE_PREFIXES = ("judge recording is stale", "no judge recording")


class CassetteError(BackendError):
    """The cassette cannot answer a turn (stale or missing). Says nothing about the session,
    so it never counts towards the two-failures rule."""


class CassetteFormatError(ValueError):
    """The file is not a readable cassette; the message names the file and the problem."""


# -- the format -------------------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CassetteToolCall(_Strict):
    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    error: str | None = None
    #: The argument text exactly as the model sent it (version 6).
    raw_arguments: str | None = None
    #: Why the call could not run as sent (version 6); `error` is what the model was given.
    call_problem: CallProblem | None = None

    @classmethod
    def recorded(cls, invocation: ToolInvocation) -> CassetteToolCall:
        """What a cassette keeps of a tool call: the fields above, by name."""
        return cls(**{name: getattr(invocation, name) for name in cls.model_fields})

    def replayed(self) -> ToolInvocation:
        """The tool call a replay hands back (no duration: it was not timed again)."""
        return ToolInvocation(**{name: getattr(self, name) for name in type(self).model_fields})


class CassetteUsage(_Strict):
    prompt_tokens: int = Field(ge=0)
    completion_tokens: int = Field(ge=0)
    total_tokens: int = Field(ge=0)


class CassetteJudgement(_Strict):
    """One judged metric's verdict on the turn. `input` is the fingerprint of what the
    judge saw (the result's `judge_input`): a replay reuses the verdict only for the same
    fingerprint, and says the recording is stale otherwise."""

    metric: str
    kind: str
    input: str
    model: str
    score: float | None = None
    reason: str | None = None
    error: str | None = None
    #: `error` was the judge's provider's (version 5): replayed as errored, not failed.
    errored: bool = False
    token_usage: CassetteUsage | None = None
    latency_ms: int = Field(default=0, ge=0)
    calls: int = Field(default=0, ge=0)


class CassetteTurn(_Strict):
    input: str
    response: str | None = None
    tool_calls: list[CassetteToolCall] = Field(default_factory=list)
    token_usage: CassetteUsage | None = None
    error: str | None = None
    #: `error` was the provider's, not the agent's (version 4): replayed as errored.
    errored: bool = False
    duration_ms: int = Field(default=0, ge=0)
    judgements: list[CassetteJudgement] = Field(default_factory=list)
    #: The tool-round limit the turn was stopped at (version 6).
    tool_limit_reached: int | None = Field(default=None, ge=1)


class CassetteSimulation(_Strict):
    """The simulated user's side of a case beyond its turns' inputs (version 7)."""

    model: str
    fingerprint: str
    scripted_turns: int = Field(default=0, ge=0)
    final_message: str | None = None
    failure: str | None = None
    failure_detail: str | None = None
    #: The judges' verdicts on the `at_end` checks (the turn after the last one).
    at_end_judgements: list[CassetteJudgement] = Field(default_factory=list)


class CassetteCase(_Strict):
    name: str | None
    index: int = Field(ge=0)
    turns: list[CassetteTurn] = Field(default_factory=list)
    #: A simulated-user case: the simulator's side (version 7); None for a scripted case.
    simulated_user: CassetteSimulation | None = None


class Cassette(_Strict):
    format: Literal["holodeck-cassette"] = FORMAT
    version: Literal[1, 2, 3, 4, 5, 6, 7] = VERSION
    agent: str
    #: Who answered, `provider:name` (version 3); a replay answers as that model, so its
    #: results and its judges' defaults are that model's. None: not known (older files).
    model: str | None = None
    cases: list[CassetteCase] = Field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        # Written as the current version, whatever version it was read as; a recording
        # without a simulated user stays version 6, as every reader of 6 reads it.
        data = self.model_dump(mode="json")
        simulated = False
        for case in data["cases"]:
            if case.get("simulated_user") is None:
                case.pop("simulated_user", None)
            else:
                simulated = True
        return {**data, "version": VERSION if simulated else WITHOUT_SIMULATION}

    def render(self, redact: Callable[[Any], Any] | None = None) -> str:
        data = self.to_json()
        if redact is not None:
            data = redact(data)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    def write(self, path: Path, redact: Callable[[Any], Any] | None = None) -> None:
        path.write_text(self.render(redact), encoding="utf-8")


def load_cassette(path: Path) -> Cassette:
    """Read a cassette; raises CassetteFormatError saying what is wrong."""
    try:
        data = read_json_file(path)
    except OSError as error:
        raise CassetteFormatError(
            f"cannot read cassette {path}: {error.strerror or error}"
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CassetteFormatError(f"cassette {path} is not JSON: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CassetteFormatError(f'{path} is not a holodeck cassette (no "format": "{FORMAT}")')
    if data.get("version") not in READABLE_VERSIONS:
        raise CassetteFormatError(
            f"cassette {path} has version {data.get('version')!r}; this holodeck-lsp reads "
            f"versions {', '.join(map(str, READABLE_VERSIONS))}"
        )
    missing = _missing_key(data)
    if missing is not None:
        raise CassetteFormatError(
            f"cassette {path}: {missing} is missing; holodeck-lsp writes every key (null when "
            "empty), so the file was cut or edited: record it again (docs/cassettes.md)"
        )
    try:
        return Cassette.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise CassetteFormatError(f"cassette {path}: {where}: {first['msg']}") from None


#: Keys every version of the format has, by level; a file without one is refused instead of
#: being read as an empty recording (no `cases`) or a turn that answered nothing (no
#: `response`). Keys added by a later version read as their empty value in older files.
_REQUIRED_KEYS: Final = {
    "top": ("agent", "cases"),
    "case": ("name", "index", "turns"),
    "turn": ("input", "response"),
}


def _missing_key(data: dict[str, Any]) -> str | None:
    """Where the first key every cassette has is missing (`cases[2].turns[0].response`), or
    None; a value of the wrong type is left to the model's validation."""
    for key in _REQUIRED_KEYS["top"]:
        if key not in data:
            return f"`{key}`"
    cases = data["cases"]
    for number, case in enumerate(cases if isinstance(cases, list) else []):
        if not isinstance(case, dict):
            continue
        for key in _REQUIRED_KEYS["case"]:
            if key not in case:
                return f"`cases[{number}].{key}`"
        turns = case["turns"]
        for turn_number, turn in enumerate(turns if isinstance(turns, list) else []):
            for key in _REQUIRED_KEYS["turn"]:
                if isinstance(turn, dict) and key not in turn:
                    return f"`cases[{number}].turns[{turn_number}].{key}`"
    return None


def cassette_usage(usage: TokenUsage | None) -> CassetteUsage | None:
    if usage is None:
        return None
    return CassetteUsage(
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        total_tokens=usage.total_tokens,
    )
