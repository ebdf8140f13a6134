"""Text that does not parse: hover, symbols, folding and definition answer nothing (no error),
and answer again once the text is fixed."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.features.navigation_agent import AGENT, hover_text, opened, position
from tests.server.lsp_client import change_file


async def test_unparseable_text_gets_no_answers(client: LanguageClient, tmp_path: Path) -> None:
    document = await opened(client, tmp_path)
    change_file(client, document, AGENT + "  - [unclosed\n", version=2)
    identifier = types.TextDocumentIdentifier(document)
    assert await hover_text(client, document, position("fuzzy")) is None
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=identifier)
    )
    assert not symbols
    folds = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=identifier)
    )
    assert not folds
    definition = await client.text_document_definition_async(
        types.DefinitionParams(text_document=identifier, position=position("subtract", 2, 1))
    )
    assert definition is None
    # Fixed again: answers come back.
    change_file(client, document, AGENT, version=3)
    assert await hover_text(client, document, position("fuzzy")) is not None
