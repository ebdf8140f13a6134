"""textDocument/hover on an imported case's name over stdio against the real server: the
source record from the `# convfinqa: <id> (<split>)` comment the importer wrote above it,
then what `name` means; a case without such a comment shows only the latter."""

from __future__ import annotations

from pathlib import Path

from pytest_lsp import LanguageClient

from holodeck_lsp.importers.convfinqa.suite import SUPPORT_FILES, convert
from tests.importers.convfinqa_records import record, write_source
from tests.server.features.navigation_agent import case_name_position, hover_text
from tests.server.lsp_client import initialize, open_file, wait_for


def imported_suite(folder: Path) -> Path:
    """A suite as `holodeck-lsp import convfinqa` writes it (two records), plus a case added
    by hand at the end, with no source comment."""
    source = write_source(folder, [record("Single_AB/2009/page_3.pdf-2"), record("B/1")])
    conversion = convert(source, "dev", None)
    for name, text in conversion.documents.items():
        page = folder / "data" / "documents" / name
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(text, encoding="utf-8")
    (folder / "data" / "convfinqa_subset.json").write_text(conversion.subset, "utf-8")
    for name, shipped in SUPPORT_FILES.items():
        (folder / name).write_bytes(shipped.read_bytes())
    agent = folder / "agent.yaml"
    hand_written = '  - name: "by hand"\n    input: "What?"\n    ground_truth: "1"\n'
    agent.write_text(conversion.agent + hand_written, encoding="utf-8")
    return agent


async def test_an_imported_case_shows_its_source_record(
    client: LanguageClient, tmp_path: Path
) -> None:
    await initialize(client, root=tmp_path)
    agent = imported_suite(tmp_path)
    document = open_file(client, agent)
    await wait_for(client, document)
    text = agent.read_text(encoding="utf-8")

    where = case_name_position(text, "single-ab-2009-page-3-pdf-2")
    first = await hover_text(client, document, where)
    assert first is not None
    source, _, field = first.partition("\n\n---\n\n")
    assert source == ("**imported from `convfinqa`**: record `Single_AB/2009/page_3.pdf-2` (dev)")
    assert field.startswith("**`name`**")
    second = await hover_text(client, document, case_name_position(text, "b-1"))
    assert second is not None and "record `B/1` (dev)" in second

    by_hand = await hover_text(client, document, case_name_position(text, "by hand"))
    assert by_hand is not None
    assert by_hand.startswith("**`name`**") and "imported from" not in by_hand
