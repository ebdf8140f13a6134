"""Where the suite is in a composed YAML node tree: the `test_cases:` entry, its cases, a case's
turns, and any key of a case or turn — found one way, for every caller (the loader and its
incremental parse, quick fixes, the outline, folding, the run features' locations).

The rule is the loader's, so that a position found here is where the value the loader checked
was written:

* A repeated key means its **last** entry. `yaml_document` builds each mapping PyYAML-style
  (`result[key] = value` entry by entry, so the last duplicate wins, with a warning) and its
  `locate` walks a mapping's entries last-first.
* Entries merged in with `<<: *anchor` count only for keys the mapping does not have itself,
  earlier merge sources before later ones (as `yaml_document` merges them).
* Keys are compared as written: a key node matches `name` when its text is `name`. For the
  identifiers looked up here that is exactly the loader's comparison of resolved keys (a plain
  scalar that resolves to a text resolves to its own text; other values never equal a text).

A suite is an agent's `test_cases:` list or a `test_cases_file` include: a list of cases at its
top level, or the mapping form with its own `test_cases:`. A pure function of the nodes — no
I/O, no schema.
"""

from __future__ import annotations

from collections.abc import Iterator

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.resolver import VersionedResolver

MERGE_TAG = "tag:yaml.org,2002:merge"
_DEFAULT_SCALAR = VersionedResolver.DEFAULT_SCALAR_TAG
CASES_KEY = "test_cases"
TURNS_KEY = "turns"


def is_merge_key(node: Node) -> bool:
    # Cheap test first: only a `<<` key can be a merge key (or an explicit !!merge tag).
    return (node.value == "<<" or node.ctag is not _DEFAULT_SCALAR) and str(node.tag) == MERGE_TAG


def mapping_entries(
    node: MappingNode, _merged: set[int] | None = None
) -> Iterator[tuple[Node, Node]]:
    """A mapping's (key, value) entries in the order a lookup must try them: its own entries
    last-first (the last duplicate wins), then merged-in entries. A mapping merged in twice
    (`<<: [*a, *a]`, nested as a "billion laughs") is read once: its second entries could
    never win, and reading them again would grow exponentially with the nesting."""
    merged = _merged if _merged is not None else {id(node)}
    merges: list[Node] = []
    for key_node, value_node in reversed(node.value):
        if is_merge_key(key_node):
            merges.append(value_node)
        else:
            yield key_node, value_node
    for merge in merges:
        sources = merge.value if isinstance(merge, SequenceNode) else [merge]
        for source in sources:
            if isinstance(source, MappingNode) and id(source) not in merged:
                merged.add(id(source))
                yield from mapping_entries(source, merged)


def entry(mapping: Node | None, name: str) -> tuple[Node, Node] | None:
    """The (key, value) nodes of `name` in `mapping` by the loader's rule; None when `mapping`
    is not a mapping or has no such key."""
    if isinstance(mapping, MappingNode):
        for key_node, value_node in mapping_entries(mapping):
            if isinstance(key_node, ScalarNode) and key_node.value == name:
                return key_node, value_node
    return None


def value_of(mapping: Node | None, name: str) -> Node | None:
    found = entry(mapping, name)
    return None if found is None else found[1]


def scalar_text(mapping: Node | None, name: str) -> tuple[Node, str] | None:
    """The value node of `name` and its text, when that value is a scalar."""
    found = value_of(mapping, name)
    return (found, str(found.value)) if isinstance(found, ScalarNode) else None


def cases_entry(root: Node | None) -> tuple[Node, Node] | None:
    """The (key, value) nodes of a mapping root's `test_cases:` (its value may be anything)."""
    return entry(root, CASES_KEY)


def cases_node(root: Node | None) -> Node | None:
    """The node holding the suite's cases: an include's top-level list itself, else the value
    of the root's `test_cases:` (not necessarily a list); None when there is none."""
    if isinstance(root, SequenceNode):
        return root
    return value_of(root, CASES_KEY)


def case_nodes(root: Node | None) -> list[Node]:
    """The items of the suite's list of cases (of any kind), in order: their index is the
    case's index in the suite. Empty when the file has no list of cases."""
    cases = cases_node(root)
    return list(cases.value) if isinstance(cases, SequenceNode) else []


def turn_nodes(case: Node) -> list[Node] | None:
    """The items of a case's `turns:` list; None when the case has no `turns:` list (a
    single-turn case, whose turn is the case itself)."""
    turns = value_of(case, TURNS_KEY)
    return list(turns.value) if isinstance(turns, SequenceNode) else None


def own_cases_sequence(root: Node | None) -> tuple[int, SequenceNode] | None:
    """The root's `test_cases:` list as one of the root's own entries: its position among
    them and its sequence node — what an incremental parse can re-use. None when the winning
    `test_cases:` is not a list or comes from a merge key."""
    found = cases_entry(root)
    if found is None or not isinstance(found[1], SequenceNode):
        return None
    assert isinstance(root, MappingNode)
    for position, (key_node, _value) in enumerate(root.value):
        if key_node is found[0]:
            return position, found[1]
    return None
