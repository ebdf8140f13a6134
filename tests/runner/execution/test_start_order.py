"""The start order of a run's cases: the longest first when it can shorten the run, file
order otherwise, ties in file order."""

from __future__ import annotations

import heapq

from holodeck_lsp.runner.execution.start_order import start_order


def makespan(lengths: list[int], order: list[int], slots: int) -> int:
    """When the last case ends, each started as soon as a slot frees (the executor's gate)."""
    free = [0] * slots
    for index in order:
        heapq.heappush(free, heapq.heappop(free) + lengths[index])
    return max(free)


def test_the_longest_cases_start_first_and_ties_keep_file_order() -> None:
    assert start_order([2, 5, 1, 5, 3], slots=2) == [1, 3, 4, 0, 2]


def test_one_slot_or_a_slot_for_every_case_keeps_file_order() -> None:
    lengths = [1, 4, 2, 7]
    assert start_order(lengths, slots=1) == [0, 1, 2, 3]  # --parallel 1 goes down the file
    assert start_order(lengths, slots=4) == [0, 1, 2, 3]
    assert start_order(lengths, slots=64) == [0, 1, 2, 3]
    assert start_order([], slots=8) == []


def test_a_long_case_late_in_the_file_no_longer_ends_the_run_alone() -> None:
    # Eight short cases, then a long one: in file order the long one starts last.
    lengths = [2] * 8 + [8]
    file_order = list(range(len(lengths)))
    assert makespan(lengths, file_order, slots=4) == 12
    assert makespan(lengths, start_order(lengths, slots=4), slots=4) == 8  # the long case itself
