"""checker/suite_locator.py: the suite's nodes found by the loader's rule — the last duplicate
key wins, merged-in keys count only when the mapping lacks them — for agents, both forms of
include, and files without a list of cases."""

from __future__ import annotations

from ruamel.yaml.nodes import Node, ScalarNode

from holodeck_lsp.checker.suite_locator import (
    case_nodes,
    cases_entry,
    cases_node,
    entry,
    own_cases_sequence,
    scalar_text,
    turn_nodes,
    value_of,
)
from holodeck_lsp.checker.yaml_document import compose, locate, parse_yaml


def root_of(text: str) -> Node:
    root = compose(text)
    assert root is not None
    return root


def names(cases: list[Node]) -> list[str | None]:
    found = [scalar_text(case, "name") for case in cases]
    return [None if item is None else item[1] for item in found]


DUPLICATED = """\
name: twice
test_cases:
  - name: first list
test_cases:
  - name: a
  - name: b
    turns:
      - input: old
    turns:
      - input: new one
      - input: new two
"""


def test_the_last_duplicate_wins_as_in_the_loaded_value() -> None:
    document = parse_yaml(DUPLICATED)
    root = document.root
    assert names(case_nodes(root)) == ["a", "b"]
    assert [case["name"] for case in document.value["test_cases"]] == ["a", "b"]
    found = cases_entry(root)
    assert found is not None and found[0].start_mark.line == 3
    turns = turn_nodes(case_nodes(root)[1])
    assert turns is not None
    inputs = [scalar_text(turn, "input") for turn in turns]
    assert [said[1] for said in inputs if said is not None] == ["new one", "new two"]
    assert document.value["test_cases"][1]["turns"][0]["input"] == "new one"


def test_agrees_with_locate_the_loaders_path_walker() -> None:
    root = root_of(DUPLICATED)
    for index, case in enumerate(case_nodes(root)):
        assert locate(root, ("test_cases", index)).node is case
    assert locate(root, ("test_cases",)).node is cases_node(root)


def test_own_sequence_is_the_winning_entry_and_its_position() -> None:
    root = root_of(DUPLICATED)
    found = own_cases_sequence(root)
    assert found is not None
    position, sequence = found
    assert position == 2 and sequence is cases_node(root)
    # An earlier list does not count when the winning value is not a list.
    assert own_cases_sequence(root_of("test_cases:\n  - input: x\ntest_cases: none\n")) is None
    parsed = parse_yaml(DUPLICATED)
    assert parsed.cases is not None and parsed.cases.pair == 2


MERGED = """\
base: &base
  test_cases:
    - name: merged
  model: {provider: openai, name: m}
agent:
  <<: *base
override:
  <<: *base
  test_cases:
    - name: own
"""


def test_merge_keys_supply_only_missing_keys() -> None:
    document = parse_yaml(MERGED)
    agent = value_of(document.root, "agent")
    override = value_of(document.root, "override")
    assert names(case_nodes(agent)) == ["merged"]
    assert names(case_nodes(override)) == ["own"]
    assert document.value["agent"]["test_cases"][0]["name"] == "merged"
    assert document.value["override"]["test_cases"][0]["name"] == "own"
    # Merged-in cases are not the mapping's own entry: nothing an incremental parse can re-use.
    assert own_cases_sequence(agent) is None
    assert own_cases_sequence(override) is not None


def test_include_forms() -> None:
    listed = root_of("- name: one\n- input: two\n")
    assert cases_node(listed) is listed
    assert names(case_nodes(listed)) == ["one", None]
    assert cases_entry(listed) is None  # a list has no `test_cases:` key
    mapped = root_of("test_cases:\n  - name: one\n")
    assert names(case_nodes(mapped)) == ["one"]


def test_no_list_of_cases() -> None:
    for text in ("just text\n", "name: x\nmodel: {}\n", "42\n"):
        root = root_of(text)
        assert cases_node(root) is None and case_nodes(root) == [], text
        assert cases_entry(root) is None and own_cases_sequence(root) is None
    assert cases_node(None) is None and case_nodes(None) == []
    not_a_list = root_of("test_cases: {name: x}\n")
    assert cases_node(not_a_list) is not None and case_nodes(not_a_list) == []
    # Items that are not mappings keep their place: an index is the case's index.
    mixed = root_of("test_cases:\n  - plain\n  - name: second\n")
    assert names(case_nodes(mixed)) == [None, "second"]


def test_single_turn_case_has_no_turn_list() -> None:
    case = case_nodes(root_of("test_cases:\n  - input: hi\n    turns: not a list\n"))[0]
    assert turn_nodes(case) is None
    assert turn_nodes(case_nodes(root_of("test_cases:\n  - input: hi\n"))[0]) is None


def test_quoted_and_plain_keys_are_the_same_name() -> None:
    root = root_of('"test_cases":\n  - name: quoted\nname: x\n')
    assert names(case_nodes(root)) == ["quoted"]
    assert entry(root, "missing") is None and scalar_text(root, "missing") is None
    assert isinstance(value_of(root, "name"), ScalarNode)
    assert parse_yaml('"test_cases":\n  - name: quoted\n').value["test_cases"] == [
        {"name": "quoted"}
    ]
