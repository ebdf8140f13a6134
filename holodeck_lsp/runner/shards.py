"""`run --shard K/N`: which cases shard K of N runs (docs/running.md, "Splitting a suite
across machines").

A case's shard is fixed by its key, never by its position: the SHA-256 of the case's name
(an unnamed case: `test_cases[i]`, its position) as a number, modulo N, plus 1. The same case
lands on the same shard in every run and on every machine — adding, removing or reordering
other cases moves none of the named ones — and N shards together run every case exactly once.
Python's own `hash()` is salted per process, so it would not do.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class ShardError(ValueError):
    """`--shard` is not K/N with 1 <= K <= N."""


@dataclass(frozen=True, slots=True)
class Shard:
    number: int  # K, from 1
    count: int  # N

    def __str__(self) -> str:
        return f"{self.number}/{self.count}"

    def holds(self, case_key: str) -> bool:
        return shard_of(case_key, self.count) == self.number


def parse_shard(text: str) -> Shard:
    """`2/4` -> Shard(2, 4); ShardError with the fix otherwise."""
    match = _SHARD.match(text)
    if match is None:
        raise ShardError(f"--shard takes K/N, e.g. 2/4 (shard 2 of 4), not {text!r}")
    number, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= number <= count:
        raise ShardError(
            f"--shard {text}: K must be 1..N and N at least 1 (e.g. 1/{max(count, 2)})"
        )
    return Shard(number, count)


def shard_of(case_key: str, count: int) -> int:
    """The shard (1..count) a case key belongs to."""
    digest = hashlib.sha256(case_key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def case_key(name: str | None, index: int) -> str:
    """What a case is sharded by: its name, else its position."""
    return name if name else f"test_cases[{index}]"
