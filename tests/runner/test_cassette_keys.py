"""A cassette missing a key every version of the format has is refused, naming the key
(docs/cassettes.md: holodeck-lsp writes every key), and a replay names the recorded cases no
test case matches instead of ignoring them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from holodeck_lsp.runner.cassette import CassetteFormatError, load_cassette
from holodeck_lsp.runner.cassette.replay import ReplayBackend
from holodeck_lsp.schema.agent import Agent


def _turn() -> dict[str, object]:
    return {"input": "q0", "response": "1", "tool_calls": [], "token_usage": None,
            "error": None, "errored": False, "duration_ms": 1, "judgements": []}  # fmt: skip


def _cassette() -> dict[str, object]:
    return {"format": "holodeck-cassette", "version": 5, "agent": "a", "model": None,
            "cases": [{"name": "one", "index": 0, "turns": [_turn()]}]}  # fmt: skip


def _drop(data: dict[str, object], where: str) -> dict[str, object]:
    case = data["cases"][0]  # type: ignore[index]
    target = {"top": data, "case": case, "turn": case["turns"][0]}[where.split(".")[0]]
    del target[where.split(".")[1]]
    return data


@pytest.mark.parametrize(
    ("where", "named"),
    [
        ("top.cases", "`cases`"),
        ("top.agent", "`agent`"),
        ("case.name", "`cases[0].name`"),
        ("case.turns", "`cases[0].turns`"),
        ("turn.response", "`cases[0].turns[0].response`"),
        ("turn.input", "`cases[0].turns[0].input`"),
    ],
)
def test_a_missing_key_is_named(tmp_path: Path, where: str, named: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps(_drop(_cassette(), where)), encoding="utf-8")
    with pytest.raises(CassetteFormatError) as caught:
        load_cassette(path)
    assert f"{named} is missing" in str(caught.value) and "record it again" in str(caught.value)


def test_keys_a_later_version_added_still_read_as_empty(tmp_path: Path) -> None:
    data = _cassette()
    turn = data["cases"][0]["turns"][0]  # type: ignore[index]
    for key in ("tool_calls", "token_usage", "error", "errored", "duration_ms", "judgements"):
        del turn[key]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_cassette(path).cases[0].turns[0].judgements == []


def test_recorded_cases_no_test_case_matches_are_named(tmp_path: Path) -> None:
    data = _cassette()
    data["cases"].append({"name": "gone", "index": 3, "turns": [_turn()]})  # type: ignore[attr-defined]
    data["cases"].append({"name": None, "index": 9, "turns": [_turn()]})  # type: ignore[attr-defined]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    agent = Agent.model_validate(
        {
            "name": "a",
            "model": {"provider": "openai", "name": "gpt-4o-mini"},
            "instructions": {"inline": "x"},
            "test_cases": [{"name": "one", "input": "q0"}],
        }
    )
    [note] = ReplayBackend(load_cassette(path), agent).notes
    assert "records 2 cases no test case matches" in note
    assert "'gone', test_cases[9]" in note
    data["cases"] = data["cases"][:1]  # type: ignore[index]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert ReplayBackend(load_cassette(path), agent).notes == ()
