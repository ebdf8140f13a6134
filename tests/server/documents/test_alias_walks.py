"""documents/token_spans.py and documents/file_values.py walk each collection once (issue 35):
an alias bomb of 12 levels (8 ** 12 paths) gives its spans and links at once, each once, at
the anchor's text; an aliased scalar still counts where it is used (`grader: *g`)."""

from __future__ import annotations

from pathlib import Path

from ruamel.yaml.nodes import Node

from holodeck_lsp.checker.yaml_document import compose
from holodeck_lsp.server.documents.file_values import file_values
from holodeck_lsp.server.documents.token_legend import TokenType
from holodeck_lsp.server.documents.token_spans import token_spans
from tests.hostile.server_inputs import alias_bomb


def root_of(text: str) -> Node:
    root = compose(text)
    assert root is not None
    return root


def test_an_alias_bomb_is_walked_once() -> None:
    text = alias_bomb(12)
    spans = token_spans(root_of(text))
    assert len(spans) == len(set(spans))
    anchor_line = text.splitlines().index(next(line for line in text.splitlines() if "&l0" in line))
    grader_parts = [span for span in spans if span[0] == anchor_line]
    # `grader: "m:f"` (module, callable) and `metric: bleu`, each once.
    assert sorted(span[3] for span in grader_parts) == sorted(
        [TokenType.MODULE, TokenType.TOOL, TokenType.METRIC]
    )


def test_links_of_an_alias_bomb_are_found_once(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "m.py").write_text("def f(): ...\n", encoding="utf-8")
    values = file_values(root_of(alias_bomb(12)), tmp_path)
    assert sorted(value.target.name for value in values) == ["a.py", "m.py"]


def test_an_aliased_scalar_counts_where_it_is_used() -> None:
    text = "defaults: &g tools.check:grade\nmetrics:\n  - grader: *g\n  - grader: *g\n"
    spans = token_spans(root_of(text))
    # Once each, on the anchored text's line, though used twice and never under its own key.
    assert [(line, length, kind) for line, _start, length, kind, _ in spans] == [
        (0, 11, TokenType.MODULE),
        (0, 5, TokenType.TOOL),
    ]
