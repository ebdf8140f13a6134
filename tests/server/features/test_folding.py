"""textDocument/foldingRange: top-level blocks, cases and turns, over stdio against the real server
and on node trees."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from holodeck_lsp.checker.yaml_document import compose
from holodeck_lsp.server.features.folding import folding_ranges
from tests.server.features.navigation_agent import opened


async def test_folding(client: LanguageClient, tmp_path: Path) -> None:
    document = await opened(client, tmp_path)
    identifier = types.TextDocumentIdentifier(document)
    folds = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=identifier)
    )
    assert folds is not None
    spans = {(f.start_line, f.end_line) for f in folds}
    assert (19, 32) in spans  # test_cases:
    assert (20, 30) in spans and (31, 32) in spans  # the two cases
    assert (22, 23) in spans and (24, 30) in spans  # the turns
    assert (6, 11) in spans  # tools:


DUPLICATED = """\
test_cases:
  - name: shadowed
    input: a
test_cases:
  - name: read
    turns:
      - input: one
        ground_truth: x
name: after
"""


def test_cases_and_turns_of_the_last_duplicate_fold() -> None:
    folds = folding_ranges(compose(DUPLICATED), DUPLICATED)
    spans = {(f.start_line, f.end_line) for f in folds}
    # Both top-level blocks fold; only the read list's case (lines 4-7) and turn (6-7) do.
    assert spans == {(0, 2), (3, 7), (4, 7), (6, 7)}
