"""textDocument/hover on a case `import bfcl` wrote, over stdio against the real server: the
source record id and its BFCL category from the `# bfcl: <id> (<category>)` comment above the
case, then what `name` means (the ConvFinQA counterpart: test_hover_import_source.py)."""

from __future__ import annotations

from pathlib import Path

from pytest_lsp import LanguageClient

from holodeck_lsp.exit_codes import EXIT_OK
from tests.importers.bfcl_support import FIXTURE, run_import
from tests.server.features.navigation_agent import case_name_position, hover_text
from tests.server.lsp_client import initialize, open_file, wait_for


async def test_an_imported_bfcl_case_shows_its_record_id_and_category(
    client: LanguageClient, tmp_path: Path
) -> None:
    await initialize(client, root=tmp_path)
    suite = tmp_path / "bfcl-multi-turn"
    status = run_import(str(FIXTURE), "-o", str(suite), "--categories", "base,miss_param",
                        "--classes", "GorillaFileSystem,TwitterAPI,MathAPI")  # fmt: skip
    assert status == EXIT_OK
    agent = suite / "agent.yaml"
    document = open_file(client, agent)
    await wait_for(client, document)
    text = agent.read_text(encoding="utf-8")

    for record_id, category in (
        ("multi_turn_base_0", "base"),
        ("multi_turn_miss_param_0", "miss_param"),
    ):
        shown = await hover_text(client, document, case_name_position(text, record_id))
        assert shown is not None, record_id
        source, _, field = shown.partition("\n\n---\n\n")
        assert source == f"**imported from `bfcl`**: record `{record_id}` ({category})"
        assert field.startswith("**`name`**")
