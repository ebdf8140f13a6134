"""Hostile names and paths, generated: escape sequences in case names, turn inputs, answers,
run notes and paths never reach the terminal raw, and `${VAR}` values inside file paths never
reach any output — for `check`, `run --replay`, `runs`, `compare` and `report` (the console
script as a process) and for the language server (docs/cli.md, "Control characters";
docs/editors/README.md, "Secrets in what the server sends").

Every hostile text is built here from `CONTROLS`, so nothing hostile is committed. The tests
that run the console script are `slow` (several processes each, about 10 s together on the
2-core machine); the rest run in the loop."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from holodeck_lsp.terminal import Palette, printable, printable_output
from tests.server.lsp_client import SERVER_COMMAND, SERVER_ENV, initialize, make_client, open_file

SCRIPT = Path(sys.executable).with_name("holodeck-lsp")
#: The console script as processes, several per test: CI and `pytest FILE`, not the loop.
SLOW = pytest.mark.slow
#: One family each: a title change (OSC … BEL), clear screen (CSI), the C1 CSI, a carriage
#: return that overwrites the line, backspace, a bidi override, NUL, DEL.
CONTROLS = (
    "\x1b]0;TITLE\x07",
    "\x1b[2J",
    "\x9b2J",
    "\rFAKE PASSED",
    "\x08\x08",
    "\u202e",
    "\x00",
    "\x7f",
)
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
SECRET = "tenant-9f3e1c"
SECRET_ENV = {"HOLODECK_TENANT": SECRET}
#: The only escape sequences output may hold with colour on: the palette's (terminal.py).
PALETTE = re.compile(r"\x1b\[(?:(?:0|1|2|3[1-4])(?:;(?:0|1|2|3[1-4]))*)?m")


def hostile_names() -> list[str]:
    return [f"case{index}{control}end" for index, control in enumerate(CONTROLS)]


def write_suite(folder: Path, *, fault: bool = False, inline: bool = False) -> Path:
    """An agent whose cases are named (and their inputs written) with every control family,
    in an include named with a `${VAR}` (`inline`: in the agent, with a tool whose file is
    named so)."""
    folder.mkdir(parents=True, exist_ok=True)
    cases = [
        {"name": name, "input": f"in{control}put", "ground_truth": "yes"}
        for name, control in zip(hostile_names(), CONTROLS, strict=True)
    ]
    if fault:
        cases[0]["bogus"] = 1  # a message that names the case
    (folder / f"cases_{SECRET}.yaml").write_text(json.dumps(cases), encoding="utf-8")
    (folder / f"tools_{SECRET}.py").write_text("def add(a, b):\n    return a + b\n", "utf-8")
    tool = (
        "tools:\n  - name: add\n    type: function\n    description: adds\n"
        "    file: tools_${HOLODECK_TENANT}.py\n    function: add\n"
    )
    source = f"test_cases: {json.dumps(cases)}\n" if inline else ""
    agent = folder / "agent.yaml"
    agent.write_text(
        "name: agent\nmodel:\n  provider: openai\n  name: gpt-4o-mini\n"
        "instructions:\n  inline: Answer briefly.\n"
        "evaluations:\n  metrics:\n    - type: standard\n      metric: equality\n"
        + (tool + source if inline else "test_cases_file: cases_${HOLODECK_TENANT}.yaml\n"),
        encoding="utf-8",
    )
    return agent


def write_cassette(path: Path, answer: str) -> Path:
    """Every case answered `answer`, or ("no") with a control sequence after it."""
    usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    turns = [
        {"input": f"in{control}put", "response": answer if answer == "yes" else answer + control,
         "tool_calls": [], "token_usage": usage, "error": None, "duration_ms": 5}
        for control in CONTROLS
    ]  # fmt: skip
    cases = [
        {"name": name, "index": index, "turns": [turn]}
        for index, (name, turn) in enumerate(zip(hostile_names(), turns, strict=True))
    ]
    data = {"format": "holodeck-cassette", "version": 2, "agent": "agent", "cases": cases}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def tamper_stored_runs(folder: Path) -> None:
    """A stored run whose model names carry a title change."""
    for stored in (folder / ".holodeck" / "runs").glob("*/run.json"):
        data = json.loads(stored.read_text(encoding="utf-8"))
        data["models"] = [f"{model}\x1b]0;T\x07" for model in data["models"]]
        stored.write_text(json.dumps(data), encoding="utf-8")


def cli(*args: str, cwd: Path, stdout_only: bool = False) -> str:
    environment = {**os.environ, **SECRET_ENV}
    environment.pop("NO_COLOR", None)
    done = subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, cwd=cwd, timeout=60,
        check=False, env=environment,
    )  # fmt: skip
    assert done.returncode in (0, 1, 2), (args, done.returncode, done.stderr)
    return done.stdout if stdout_only else done.stdout + done.stderr


def assert_clean(output: str, *, colour: bool = False) -> None:
    shown = PALETTE.sub("", output) if colour else output
    assert not RAW.findall(shown), (RAW.findall(shown), shown[:3000])
    assert SECRET not in output, output[:3000]


@pytest.fixture(autouse=True)
def _installed() -> None:
    if not SCRIPT.exists():
        pytest.skip("holodeck-lsp is not installed in this environment (pip install -e .)")


def test_printable_escapes_every_control_family() -> None:
    for control in CONTROLS:
        shown = printable(f"a{control}b")
        assert not RAW.search(shown) and shown.startswith("a") and shown.endswith("b"), shown
    assert printable("tab\tand\nnewline stay") == "tab\tand\nnewline stay"
    assert printable("\x1b[2J") == "\\x1b[2J"


def test_the_stream_keeps_only_the_tool_s_own_drawing(monkeypatch: pytest.MonkeyPatch) -> None:
    written: list[str] = []

    class Sink:
        def write(self, text: str) -> int:
            written.append(text)
            return len(text)

    monkeypatch.setattr(sys, "stdout", Sink())
    hostile = "evil\x1b[2J\x1b[5F\r\x1b[K"
    with printable_output():
        sys.stdout.write(f"plain {hostile}\n")  # not drawing yet: every escape is written out
        Palette(True)  # colour on: the palette's sequences pass from now on
        sys.stdout.write(f"\r\x1b[K[1/2] {hostile} \x1b[31;1mFAILED\x1b[0m")
        sys.stdout.write(f"\x1b[2F\x1b[J[2/2] {hostile}\n")
    plain, bar, redraw = written
    assert "\x1b" not in plain and "\r" not in plain, plain
    assert bar.startswith("\r\x1b[K[1/2] evil\\x1b[2J\\x1b[5F\\r\\x1b[K "), bar
    assert bar.endswith("\x1b[31;1mFAILED\x1b[0m"), bar
    assert redraw == "\x1b[2F\x1b[J[2/2] evil\\x1b[2J\\x1b[5F\\r\\x1b[K\n", redraw


@SLOW
def test_check_run_runs_compare_and_report_print_no_control_character(tmp_path: Path) -> None:
    folder = tmp_path / "suite"
    write_suite(folder, fault=True)
    checked = cli("check", "agent.yaml", cwd=folder)
    assert "case0\\x1b]0;TITLE\\x07end" in checked and "${HOLODECK_TENANT}" in checked, checked
    assert_clean(checked)

    write_suite(folder)
    first = write_cassette(tmp_path / "first.json", "no")
    second = write_cassette(tmp_path / "second.json", "yes")
    ran = cli("run", ".", "--replay", str(first), cwd=folder)
    assert "FAILED" in ran and "case1\\x1b[2Jend" in ran, ran
    assert_clean(ran)
    tamper_stored_runs(folder)
    assert_clean(cli("run", ".", "--replay", str(second), "--verbose", cwd=folder))
    listed = cli("runs", ".", cwd=folder)
    assert "gpt-4o-mini\\x1b]0;T\\x07" in listed, listed
    assert_clean(listed)
    compared = cli("compare", cwd=folder)
    assert "Fixes" in compared, compared
    assert_clean(compared)
    assert_clean(cli("report", "latest", "--md", str(tmp_path / "r.md"), cwd=folder))
    assert_clean(cli("report", "no\x1b]0;T\x07such-run", cwd=folder))


@SLOW
def test_file_names_with_control_characters_are_escaped_in_check(tmp_path: Path) -> None:
    folder = tmp_path / "suite"
    write_suite(folder, fault=True)
    include = f"cases{CONTROLS[0]}{CONTROLS[2]}.yaml"  # C0 and C1
    (folder / f"cases_{SECRET}.yaml").rename(folder / include)
    agent = folder / "agent.yaml"
    text = agent.read_text(encoding="utf-8")
    agent.write_text(
        text.replace("cases_${HOLODECK_TENANT}.yaml", json.dumps(include))
        + "tools:\n  - name: add\n    type: function\n    description: adds\n"
        + f"    file: {json.dumps('missing' + CONTROLS[2] + '.py')}\n    function: add\n",
        encoding="utf-8",
    )
    for output_format in ("json", "sarif"):
        printed = cli(
            "check", "agent.yaml", "--format", output_format, cwd=folder, stdout_only=True
        )
        assert_clean(printed)
        document = json.loads(printed)  # still valid JSON
        if output_format == "json":
            assert include in [file["path"] for file in document["files"]]  # the same name
    for output_format in ("text", "github"):
        checked = cli("check", "agent.yaml", "--format", output_format, cwd=folder)
        assert "cases\\x1b]0;TITLE\\x07\\u009b2J.yaml" in checked, checked
        assert_clean(checked)


@SLOW
def test_with_colour_on_only_the_palette_s_own_sequences_pass(tmp_path: Path) -> None:
    folder = tmp_path / "suite"
    write_suite(folder)
    cassette = write_cassette(tmp_path / "c.json", "no")
    ran = cli("run", ".", "--replay", str(cassette), "--color", "always", cwd=folder)
    assert PALETTE.search(ran), ran  # colour is on
    assert_clean(ran, colour=True)


# --------------------------------------------------------------------------- the server

RECEIVED: list[str] = []


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER_COMMAND,
        client_factory=make_client,
        server_env={**SERVER_ENV, **SECRET_ENV},
    )
)
async def hostile_client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    structure = lsp_client.protocol.structure_message

    def record(data: dict[str, Any]) -> Any:
        RECEIVED.append(json.dumps(data, ensure_ascii=False))
        return structure(data)

    lsp_client.protocol.structure_message = record  # type: ignore[method-assign]
    yield
    await lsp_client.shutdown_session()


async def test_the_server_answers_hostile_names_and_masks_secret_paths(
    hostile_client: LanguageClient, tmp_path: Path
) -> None:
    client = hostile_client
    RECEIVED.clear()
    agent = write_suite(tmp_path / "suite", fault=True, inline=True)
    await initialize(client, root=tmp_path, diagnostics="pull")
    agent_uri = open_file(client, agent)
    document = types.TextDocumentIdentifier(uri=agent_uri)
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))
    assert symbols, "the hostile cases are found"
    await client.text_document_document_symbol_async(types.DocumentSymbolParams(document))
    await client.text_document_document_link_async(types.DocumentLinkParams(document))
    for line in range(len(agent.read_text(encoding="utf-8").splitlines())):
        await client.text_document_hover_async(
            types.HoverParams(document, types.Position(line, 20))
        )
    answer = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(document))
    messages = [item.message for item in answer.items]
    assert any("case0\\x1b]0;TITLE\\x07end" in message for message in messages), messages
    assert any("tools_${HOLODECK_TENANT}.py" in message for message in RECEIVED)
    assert not any(SECRET in message for message in RECEIVED), [
        m[:300] for m in RECEIVED if SECRET in m
    ]
