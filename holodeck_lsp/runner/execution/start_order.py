"""In which order a run's cases take the `parallel` slots: the longest first.

Cases hold a slot for as long as their conversation lasts, and conversations differ in length
(the ConvFinQA sample: 2 to 7 turns, 4 to 22 model answers). Taken in file order, a long case
that happens to come late starts when the others are nearly done and runs on alone: on the
sample's first 128 dialogues at 64 slots that alone limits the speed-up to 42x with an
executor costing nothing. Starting the longest cases first (the classic LPT rule for
scheduling jobs on identical machines) brings the same 128 to 50x — the longest case's own
length, the bound no order can beat (docs/benchmarks.md, "Parallel speed-up at scale").

The length known before the run is the number of turns a case sends; ties keep file order, so
cases of equal length (and a case's models and repeats, which are equally long) start as
before. Only the start order changes: results, reports and progress numbering stay in file
order. With one slot, or a slot for every case, the order changes nothing and file order is
kept — a `--parallel 1` run still goes down the file, and `-x` stops where it did.
"""

from __future__ import annotations

from collections.abc import Sequence


def start_order(lengths: Sequence[int], slots: int) -> list[int]:
    """Indices into `lengths` (each work item's turns to send), in the order to start them."""
    indices = list(range(len(lengths)))
    if slots <= 1 or slots >= len(lengths):
        return indices
    return sorted(indices, key=lambda i: -lengths[i])  # stable: ties stay in file order
