"""Push diagnostics from the real server: codes, UTF-16 ranges, versions, debounce, close."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import (
    change_file,
    initialize,
    open_file,
    published,
    summary,
    uri,
    wait_for,
)
from tests.server.shared_server import own_client, own_folder, shared_client, shared_workspace

# One server for the module (tests/server/shared_server.py): each test opens its documents in
# its own folder. The tests that initialize differently start their own (`own_client`).
workspace = shared_workspace("push")
client = shared_client()
folder = own_folder()
fresh_client = own_client()

HEADER = """name: emoji
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: "Answer."
test_cases:
"""
#: `5` is at code point 49 of this line, UTF-16 unit 50 (📈 is two UTF-16 units).
EMOJI_CASE = '  - {name: "📈 growth", input: "q", ground_truth: 5}\n'
FIXED_CASE = '  - {name: "📈 growth", input: "q", ground_truth: "5"}\n'


async def test_initialize_names_the_server_and_negotiates_utf16(
    fresh_client: LanguageClient, tmp_path: Path
) -> None:
    client = fresh_client
    result = await initialize(client, root=tmp_path)
    assert result.server_info is not None
    assert result.server_info.name == "holodeck-lsp"
    assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf16
    assert result.capabilities.diagnostic_provider is None  # push by default


async def test_open_reports_codes_at_utf16_ranges(client: LanguageClient, folder: Path) -> None:
    agent = folder / "agent.yaml"
    agent.write_text(HEADER + EMOJI_CASE, encoding="utf-8")
    params = await wait_for(client, open_file(client, agent), lambda p: p.version == 1)
    [diagnostic] = params.diagnostics
    assert diagnostic.code == "HD102"
    assert diagnostic.source == "holodeck"
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (7, 50)
    assert (diagnostic.range.end.line, diagnostic.range.end.character) == (7, 51)
    assert diagnostic.data["field_path"] == "test_cases[0].ground_truth"
    assert diagnostic.data["test_case"] == "📈 growth"


async def test_utf32_client_gets_code_points(fresh_client: LanguageClient, tmp_path: Path) -> None:
    client = fresh_client
    result = await initialize(client, root=tmp_path, encodings=["utf-8", "utf-32", "utf-16"])
    assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf32
    agent = tmp_path / "agent.yaml"
    agent.write_text(HEADER + EMOJI_CASE, encoding="utf-8")
    params = await wait_for(client, open_file(client, agent), lambda p: p.version == 1)
    assert params.diagnostics[0].range.start.character == 49


async def test_change_republishes_with_the_new_version(
    client: LanguageClient, folder: Path
) -> None:
    agent = folder / "agent.yaml"
    agent.write_text(HEADER + FIXED_CASE, encoding="utf-8")
    document = open_file(client, agent)
    assert not (await wait_for(client, document, lambda p: p.version == 1)).diagnostics
    change_file(client, document, HEADER + "# moved down\n" + EMOJI_CASE, version=2)
    params = await wait_for(client, document, lambda p: p.version == 2)
    assert [(d.code, d.range.start.line) for d in params.diagnostics] == [("HD102", 8)]
    change_file(client, document, HEADER + FIXED_CASE, version=3)
    assert not (await wait_for(client, document, lambda p: p.version == 3)).diagnostics


async def test_a_burst_of_changes_publishes_only_the_last_version(
    client: LanguageClient, folder: Path
) -> None:
    agent = folder / "agent.yaml"
    agent.write_text(HEADER + FIXED_CASE, encoding="utf-8")
    document = open_file(client, agent)
    await wait_for(client, document, lambda p: p.version == 1)
    for version in range(2, 22):
        case = EMOJI_CASE if version % 2 else FIXED_CASE
        change_file(client, document, HEADER + f"# edit {version}\n" + case, version=version)
    last = await wait_for(client, document, lambda p: p.version == 21)
    assert [d.code for d in last.diagnostics] == ["HD102"]
    versions = [p.version for p in published(client) if p.uri == document]
    # No version of the burst but its last; version 1 may be published twice (the fast pass,
    # then the pass made on open: docs/editors/README.md) when the machine is slow.
    assert sorted(set(versions)) == [1, 21]
    assert versions == sorted(versions)


async def test_close_clears_diagnostics(client: LanguageClient, folder: Path) -> None:
    agent = folder / "agent.yaml"
    agent.write_text(HEADER + EMOJI_CASE, encoding="utf-8")
    document = open_file(client, agent)
    assert (await wait_for(client, document, lambda p: p.version == 1)).diagnostics
    before = len(published(client))
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=document))
    )
    # The pass made on open may still publish version 1 once more before the close is read
    # (test_a_burst_of_changes_publishes_only_the_last_version says why): wait for the clear.
    await wait_for(
        client, document, lambda p: p in published(client)[before:] and not p.diagnostics
    )
    after = [p for p in published(client)[before:] if p.uri == document]
    cleared_at = next(i for i, p in enumerate(after) if not p.diagnostics)
    assert all(p.version == 1 for p in after[:cleared_at])  # nothing newer than what was open
    assert all(not p.diagnostics for p in after[cleared_at:])  # nothing stale after the clear


async def test_files_that_are_not_agents_get_nothing(client: LanguageClient, folder: Path) -> None:
    other = folder / "other.yaml"
    other.write_text("just: data\n", encoding="utf-8")
    agent = folder / "suite.agent.yaml"
    agent.write_text(HEADER + EMOJI_CASE, encoding="utf-8")
    open_file(client, other)
    await wait_for(client, open_file(client, agent), lambda p: p.version == 1)
    assert uri(other) not in {p.uri for p in published(client)}


async def test_yaml_with_top_level_test_cases_is_an_agent(
    client: LanguageClient, folder: Path
) -> None:
    suite = folder / "suite.yaml"
    suite.write_text(HEADER + EMOJI_CASE, encoding="utf-8")
    params = await wait_for(client, open_file(client, suite), lambda p: p.version == 1)
    assert summary(params.diagnostics)[0][0] == "HD102"


async def test_agent_globs_setting_is_read(fresh_client: LanguageClient, tmp_path: Path) -> None:
    client = fresh_client
    await initialize(client, root=tmp_path, settings={"agentGlobs": ["suites/*.yml"]})
    (tmp_path / "suites").mkdir()
    suite = tmp_path / "suites" / "bad.yml"
    suite.write_text("name: x\n", encoding="utf-8")  # no test_cases: only the glob makes it ours
    params = await wait_for(client, open_file(client, suite), lambda p: p.version == 1)
    assert params.diagnostics  # missing model / instructions
