"""engine/report_merge.py: shards joined as one run — summary recomputed, costs summed (unknown
when a part's is), environment entries the parts disagree on dropped — and parts that are not
one run's shards refused with what to do."""

from __future__ import annotations

import pytest

from holodeck_lsp.engine.report_merge import MERGED_FROM, MergeError, merge_reports
from tests.cli.built_reports import case, report


def _part(indexes: list[int], **update: object) -> object:
    built = report([case(i, [i % 2 == 0]) for i in indexes])
    priced = built.summary.model_copy(update={"cost_usd": 0.001 * len(indexes)})
    return built.model_copy(
        update={
            "environment": {"host": f"h{indexes[0]}", "mode": "live"},
            "summary": priced,
            **update,
        }
    )


def test_parts_join_into_one_run() -> None:
    one, two = _part([0, 2, 4]), _part([1, 3])
    merged = merge_reports([("a", one), ("b", two)])  # type: ignore[list-item]
    assert [r.test_index for r in merged.results] == [0, 1, 2, 3, 4]
    assert (merged.summary.passed, merged.summary.failed, merged.summary.total_tests) == (3, 2, 5)
    assert merged.summary.cost_usd == pytest.approx(0.005)
    assert merged.model_summaries["openai:gpt-a"].total_tests == 5
    assert merged.environment == {"mode": "live", MERGED_FROM: "a, b"}  # hosts differ: dropped


def test_an_unpriced_part_leaves_the_cost_unknown() -> None:
    one, two = _part([0]), _part([1])
    two = two.model_copy(update={"summary": two.summary.model_copy(update={"cost_usd": None})})  # type: ignore[attr-defined]
    assert merge_reports([("a", one), ("b", two)]).summary.cost_usd is None  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("second", "message"),
    [
        ({"agent_config_path": "another.yaml"}, "merge the shards of one agent file"),
        ({"repeats": 2}, "the same --repeat"),
    ],
)
def test_parts_of_different_runs_are_refused(second: dict[str, object], message: str) -> None:
    with pytest.raises(MergeError, match=message):
        merge_reports([("a", _part([0])), ("b", _part([1], **second))])  # type: ignore[list-item]


def test_overlapping_and_single_parts_are_refused() -> None:
    with pytest.raises(MergeError, match="is in both a and b"):
        merge_reports([("a", _part([0, 1])), ("b", _part([1]))])  # type: ignore[list-item]
    with pytest.raises(MergeError, match="two or more"):
        merge_reports([("a", _part([0]))])  # type: ignore[list-item]
