"""checker/yaml_locate.py's KeyIndex and suite_locator.mapping_entries stay linear in the
document (issue 35): locating an error per unknown key reads the mapping's keys once, not once
per error, and a mapping merged in many times (a merge-key "billion laughs") is read once.
Counted in entries read, not timed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from ruamel.yaml.nodes import MappingNode, Node

from holodeck_lsp.checker import suite_locator, yaml_locate
from holodeck_lsp.checker.loader import load_agent_text
from holodeck_lsp.checker.yaml_document import compose, locate
from holodeck_lsp.checker.yaml_locate import KeyIndex
from holodeck_lsp.schema.codes import Code
from tests.hostile.server_inputs import many_unknown_keys


def root_of(text: str) -> Node:
    root = compose(text)
    assert root is not None
    return root


@pytest.fixture
def entries_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many mapping entries the key locator reads (one count, updated as they are)."""
    count = [0]
    original = suite_locator.mapping_entries

    def counting(node: MappingNode, _merged: set[int] | None = None) -> Iterator[tuple[Node, Node]]:
        for pair in original(node, _merged):
            count[0] += 1
            yield pair

    monkeypatch.setattr(yaml_locate, "mapping_entries", counting)
    return count


def test_each_unknown_key_is_located_at_its_own_line(
    entries_read: list[int], tmp_path: Path
) -> None:
    keys = 2_000
    result = load_agent_text(many_unknown_keys(keys), tmp_path / "agent.yaml")
    unknown = [d for d in result.diagnostics if d.code is Code.UNKNOWN_KEY]
    assert len(unknown) == keys
    lines = sorted(d.range.start.line for d in unknown)
    assert lines == list(range(lines[0], lines[0] + keys))  # each at its own key
    # Read once for all the errors (a few mappings, a few times), not once per error:
    # scanning per error read about keys * keys / 2 = 2,000,000 entries.
    assert entries_read[0] < 10 * keys


def test_the_index_answers_as_a_scan_does() -> None:
    text = (
        "base: &base {a: 1, b: 2}\n"
        "m:\n  <<: *base\n"
        + "".join(f"  k{i}: {i}\n" for i in range(40))
        + "  a: own\n  k3: last\n  1: one\n  true: yes\n"
    )
    root = root_of(text)
    index = KeyIndex()
    for name in ("a", "b", "k3", "k39", 1, "1", "missing"):
        with_index = locate(root, ("m", name), index)
        scanned = locate(root, ("m", name))
        assert (with_index.node, with_index.key, with_index.rest) == (
            scanned.node,
            scanned.key,
            scanned.rest,
        )
    assert str(locate(root, ("m", "a"), index).node.value) == "own"  # own beats merged
    assert str(locate(root, ("m", "k3"), index).node.value) == "last"  # the last duplicate
    assert str(locate(root, ("m", "b"), index).node.value) == "2"  # merged in


def merge_bomb(levels: int, fan_out: int = 8) -> str:
    rows = ["l0: &l0 {a: 1}"]
    for level in range(1, levels + 1):
        merged = ", ".join([f"*l{level - 1}"] * fan_out)
        rows.append(f"l{level}: &l{level} {{<<: [{merged}], own{level}: {level}}}")
    return "\n".join(rows) + "\n"


def test_a_mapping_merged_in_many_times_is_read_once() -> None:
    levels = 12  # 8 ** 12 entries if each merge were read again
    root = root_of(merge_bomb(levels))
    last = locate(root, (f"l{levels}",)).node
    assert isinstance(last, MappingNode)
    read = list(suite_locator.mapping_entries(last))
    assert len(read) == levels + 1  # own{levels} … own1, then a
    assert suite_locator.value_of(last, "a") is not None
    assert suite_locator.value_of(last, "missing") is None
