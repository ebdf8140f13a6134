"""`run --shard K/N`'s assignment (runner/shards.py, runner/selection.py): by the SHA-256 of
the case's name, so every case is in exactly one shard, the same one whatever the order of
the suite's cases, and wrong K/N values are refused with the form to use."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from holodeck_lsp.checker.loader import load_agent_text
from holodeck_lsp.runner.selection import Selection, plan_cases
from holodeck_lsp.runner.shards import Shard, ShardError, parse_shard, shard_of


def _agent(names: list[str | None]) -> object:
    cases = "".join(
        (f"  - name: {name}\n" if name else "  -\n") + f"    input: q{i}\n    ground_truth: a\n"
        for i, name in enumerate(names)
    )
    text = (
        "name: s\nmodel:\n  provider: openai\n  name: gpt-4o-mini\n"
        "instructions:\n  inline: x\ntest_cases:\n" + cases
    )
    loaded = load_agent_text(text, Path("agent.yaml"))
    assert loaded.agent is not None, loaded.diagnostics
    return loaded.agent


def _names(agent: object, shard: Shard) -> set[str]:
    return {
        planned.case.name or f"#{planned.index}"
        for planned in plan_cases(agent, Selection(shard=shard))  # type: ignore[arg-type]
    }


def test_the_hash_is_sha256_of_the_name() -> None:
    digest = hashlib.sha256(b"refund-policy").digest()
    assert shard_of("refund-policy", 7) == int.from_bytes(digest[:8], "big") % 7 + 1


@pytest.mark.parametrize("count", [1, 2, 3, 5, 8])
def test_every_case_in_exactly_one_shard_whatever_the_order(count: int) -> None:
    names = [f"case-{i}" for i in range(40)]
    agent = _agent(list(names))
    shards = [_names(agent, Shard(k, count)) for k in range(1, count + 1)]
    assert sorted(n for shard in shards for n in shard) == sorted(names)
    reordered = _agent(list(reversed(names[5:])))  # five cases dropped, the rest reversed
    for k, shard in enumerate(shards, start=1):
        assert _names(reordered, Shard(k, count)) == shard - set(names[:5])


def test_shards_combine_with_other_selectors() -> None:
    agent = _agent([f"alpha-{i}" for i in range(10)] + [f"beta-{i}" for i in range(10)])
    selection = Selection(keyword="beta", shard=Shard(1, 2))
    chosen = {p.case.name for p in plan_cases(agent, selection)}  # type: ignore[arg-type]
    assert chosen == {f"beta-{i}" for i in range(10) if shard_of(f"beta-{i}", 2) == 1}


def test_unnamed_cases_are_sharded_by_position() -> None:
    agent = _agent([None, None, None, None])
    found = set()
    for k in (1, 2):
        found |= {p.index for p in plan_cases(agent, Selection(shard=Shard(k, 2)))}  # type: ignore[arg-type]
    assert found == {0, 1, 2, 3}


@pytest.mark.parametrize("text", ["0/3", "4/3", "3", "a/b", "1/0", "-1/2"])
def test_bad_values_are_refused(text: str) -> None:
    with pytest.raises(ShardError, match="K"):
        parse_shard(text)


def test_good_values() -> None:
    assert parse_shard(" 2 / 4 ") == Shard(2, 4)
    assert str(parse_shard("1/1")) == "1/1"
