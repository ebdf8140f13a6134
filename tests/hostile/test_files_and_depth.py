"""A hostile corpus, generated at test time in tmp_path (nothing large is committed): files
that are not regular files (named pipes, links to /dev/zero), files over the size limit
(sparse, made with truncate), and YAML and JSON nested deeper than any reader can recurse.
Each family goes through the real console script (`check`, `run --replay`, `report`,
`compare`, `runs`) and the real language server over stdio, each with a timeout, so a hang
fails the test instead of stalling it, and each must end with a clear error naming the file
(docs/checks.md, "Limits on what is read")."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.server.lsp_client import (
    SERVER_COMMAND,
    SERVER_ENV,
    initialize,
    make_client,
    open_file,
    uri,
    wait_for,
)

pytestmark = pytest.mark.skipif(
    not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(),
    reason="needs named pipes and /dev/zero",
)

SCRIPT = Path(sys.executable).parent / "holodeck-lsp"
#: The limit the processes run with: a sparse file just over it costs nothing to make.
LIMIT_MB = 1
ENV = {**os.environ, "HOLODECK_LSP_MAX_FILE_MB": str(LIMIT_MB), "NO_COLOR": "1"}
#: A hang is a failure, not a latency figure: generous for two cores shared by parallel tests.
HANG_S = 60
DEEP = 28_000  # the depth that crashed the C composer (issue 35)

AGENT = """\
name: hostile
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: "Answer."
{extra}"""
CASES = 'test_cases:\n  - name: one\n    input: "q0"\n    ground_truth: "1"\n'

#: How each deep family is written as a value.
DEEP_VALUES = {
    "flow-sequences": "[" * DEEP + "]" * DEEP,
    "flow-mappings": "{a: " * DEEP + "1" + "}" * DEEP,
    "block-sequences": "\n    " + "- " * DEEP + "x",
}

Maker = Callable[[Path], None]


def fifo(path: Path) -> None:
    os.mkfifo(path)


def dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def too_big(path: Path) -> None:
    with path.open("wb") as handle:
        handle.truncate(LIMIT_MB * 1_000_000 + 1)  # sparse: nothing is written


BAD_FILES: dict[str, tuple[Maker, str]] = {
    "fifo": (fifo, "named pipe"),
    "dev-zero": (dev_zero, "character device"),
    "too-big": (too_big, f"over the {LIMIT_MB * 1_000_000:,}-byte limit"),
}


def console(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(SCRIPT), *args],
        cwd=cwd,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    """(exit status, stdout, stderr); a process still running after HANG_S is a hang."""
    try:
        out, err = process.communicate(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"{process.args} hung (killed after {HANG_S} s)")
    assert process.returncode >= 0, f"{process.args} died of signal {-process.returncode}"
    return process.returncode, out, err


def suite(folder: Path, extra: str = CASES) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    agent = folder / "agent.yaml"
    agent.write_text(AGENT.format(extra=extra), encoding="utf-8")
    return agent


def check_corpus(root: Path) -> dict[str, tuple[Path, str, str]]:
    """name -> (agent file, expected code, words the message must hold), one folder each."""
    corpus: dict[str, tuple[Path, str, str]] = {}
    for kind, (make, words) in BAD_FILES.items():
        agent_folder = root / f"agent-{kind}"
        agent_folder.mkdir()
        make(agent_folder / "agent.yaml")
        corpus[f"agent is {kind}"] = (agent_folder / "agent.yaml", "HD005", words)
        agent = suite(root / f"include-{kind}", "test_cases_file: cases.yaml\n")
        make(agent.parent / "cases.yaml")
        corpus[f"include is {kind}"] = (agent, "HD141", words)
        prompt = "claude:\n  agents:\n    helper:\n      description: d\n      prompt_file: p.md\n"
        agent = suite(root / f"prompt-{kind}", CASES + prompt)
        make(agent.parent / "p.md")
        corpus[f"prompt_file is {kind}"] = (agent, "HD005", words)
    for family, value in DEEP_VALUES.items():
        agent = suite(root / f"deep-{family}", CASES + f"metadata: {value}\n")
        corpus[f"agent nests {family}"] = (agent, "HD003", "more than 500 levels")
        agent = suite(root / f"deep-include-{family}", "test_cases_file: cases.yaml\n")
        (agent.parent / "cases.yaml").write_text(f"- {value}\n", encoding="utf-8")
        corpus[f"include nests {family}"] = (agent, "HD003", "more than 500 levels")
    return corpus


def test_check_reads_no_pipe_device_or_oversized_file_and_survives_deep_nesting(
    tmp_path: Path,
) -> None:
    corpus = check_corpus(tmp_path)
    # One process for the whole corpus, and a folder whose member is a pipe: `check FOLDER`.
    member = tmp_path / "folder" / "sub"
    member.mkdir(parents=True)
    fifo(member / "agent.yaml")
    files = [str(agent) for agent, _, _ in corpus.values()]
    status, output, errors = finish(
        console("check", "--format", "json", *files, "folder", cwd=tmp_path)
    )
    assert status == 2, errors
    report = json.loads(output)
    found: dict[str, list[dict[str, object]]] = {}
    for entry in report["files"]:
        found.setdefault(Path(entry["path"]).parent.name, []).extend(entry["diagnostics"])
    for name, (agent, code, words) in corpus.items():
        diagnostics = found.get(agent.parent.name, [])
        assert any(d["code"] == code and words in str(d["message"]) for d in diagnostics), (
            name,
            diagnostics,
        )
    assert any("named pipe" in str(d["message"]) for d in found["sub"]), found["sub"]


def cassette(cases: list[dict[str, object]]) -> dict[str, object]:
    return {"format": "holodeck-cassette", "version": 5, "agent": "hostile", "model": None,
            "cases": cases}  # fmt: skip


def recorded(name: str, response: object = "1") -> dict[str, object]:
    turn = {"input": "q0", "response": response, "tool_calls": [], "token_usage": None,
            "error": None, "errored": False, "duration_ms": 1, "judgements": []}  # fmt: skip
    return {"name": name, "index": 0, "turns": [turn]}


@pytest.mark.slow  # a console script per file family, in parallel
def test_run_replay_refuses_bad_cassettes_and_names_unmatched_cases(tmp_path: Path) -> None:
    agent = suite(tmp_path)
    tapes: dict[str, tuple[int, str]] = {}
    for kind, (make, words) in BAD_FILES.items():
        make(tmp_path / f"{kind}.json")
        tapes[f"{kind}.json"] = (3, words)
    deep = '{"cases": ' + "[" * 100_000 + "]" * 100_000 + "}"
    (tmp_path / "deep.json").write_text(deep, encoding="utf-8")
    tapes["deep.json"] = (3, "nested more than 500 levels")
    without_response = cassette([recorded("one")])
    del without_response["cases"][0]["turns"][0]["response"]  # type: ignore[index]
    (tmp_path / "no-response.json").write_text(json.dumps(without_response), encoding="utf-8")
    tapes["no-response.json"] = (3, "`cases[0].turns[0].response` is missing")
    extra = cassette([recorded("one"), {**recorded("gone"), "index": 7}])
    (tmp_path / "extra.json").write_text(json.dumps(extra), encoding="utf-8")
    tapes["extra.json"] = (0, "no test case matches (by name, else by index), not replayed: 'gone'")
    deep_agent = suite(
        tmp_path / "deep-agent", CASES + f"metadata: {DEEP_VALUES['flow-sequences']}\n"
    )
    processes = {
        name: console("run", str(agent), "--replay", name, "--no-save", cwd=tmp_path)
        for name in tapes
    }
    processes["deep agent"] = console(
        "run", str(deep_agent), "--replay", "extra.json", "--no-save", cwd=tmp_path
    )
    tapes["deep agent"] = (2, "more than 500 levels")
    # holodeck-lsp.yaml (the models to run) over the limit, beside another agent.
    configured = suite(tmp_path / "configured")
    too_big(configured.parent / "holodeck-lsp.yaml")
    processes["config"] = console(
        "run", str(configured), "--replay", "extra.json", "--no-save", cwd=tmp_path
    )
    tapes["config"] = (2, "holodeck-lsp.yaml is 1,000,001 bytes, over the 1,000,000-byte limit")
    # A stopped run whose journal says it replayed /dev/zero: `run --resume` reads it again.
    run_id = "20261201-223015-3f2a"
    stopped = tmp_path / ".holodeck" / "runs" / run_id
    stopped.mkdir(parents=True)
    header = {"kind": "header", "journal_version": 1, "run_id": run_id,
              "started": "2026-12-01T22:30:15+00:00", "agent_file": "agent.yaml",
              "agent_name": "hostile", "mode": "replay",
              "replay_of": str(tmp_path / "dev-zero.json"), "sessions": 1}  # fmt: skip
    journal = json.dumps(header, separators=(",", ":")) + "\n"
    (stopped / "journal.jsonl").write_text(journal, encoding="utf-8")
    processes["resume"] = console("run", str(agent), "--resume", run_id, "--force", cwd=tmp_path)
    tapes["resume"] = (3, "dev-zero.json is a character device")
    for name, process in processes.items():
        status, out, err = finish(process)
        output = out + err
        expected_status, words = tapes[name]
        assert (status, words in output) == (expected_status, True), (name, output)
        if name in {"fifo.json", "dev-zero.json", "too-big.json"}:
            assert name in output, output  # the message names the file


@pytest.mark.slow  # a console script per file family, in parallel
def test_report_compare_runs_and_import_read_hostile_files_without_a_traceback(
    tmp_path: Path,
) -> None:
    deep = tmp_path / "report.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    fifo(tmp_path / "pipe.json")
    runs = tmp_path / ".holodeck" / "runs" / "20261201-223015-3f2a"
    runs.mkdir(parents=True)
    fifo(runs / "run.json")
    deep_run = tmp_path / ".holodeck" / "runs" / "20261201-223016-3f2b"
    deep_run.mkdir()
    (deep_run / "run.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    suite(tmp_path)
    processes = {
        "report": console("report", "report.json", "--md", "out.md", cwd=tmp_path),
        "compare": console("compare", "report.json", "report.json", cwd=tmp_path),
        "compare pipe": console("compare", "pipe.json", "report.json", cwd=tmp_path),
        "runs": console("runs", cwd=tmp_path),
        "import": console("import", "convfinqa", "pipe.json", "--out", "suite", cwd=tmp_path),
    }
    words = {
        "report": "nested more than 500 levels",
        "compare": "nested more than 500 levels",
        "compare pipe": "pipe.json is not a regular file",
        "runs": "run.json is not JSON (line 1: arrays and objects nested more than 500",
        "import": "pipe.json is a named pipe",
    }
    outputs: dict[str, str] = {}
    for name, process in processes.items():
        status, out, err = finish(process)
        outputs[name] = output = out + err
        assert "Traceback" not in output, (name, output)
        assert words[name] in output, (name, status, output)
    assert "run.json cannot be read" in outputs["runs"], outputs["runs"]
    assert "named pipe" in outputs["runs"], outputs["runs"]


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER_COMMAND,
        client_factory=make_client,
        server_env={**SERVER_ENV, "HOLODECK_LSP_MAX_FILE_MB": str(LIMIT_MB)},
    )
)
async def client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def hostile_workspace(tmp_path: Path) -> Path:
    suite(tmp_path / "pipe-include", "test_cases_file: cases.yaml\n")
    fifo(tmp_path / "pipe-include" / "cases.yaml")
    suite(tmp_path / "zero-include", "test_cases_file: cases.yaml\n")
    dev_zero(tmp_path / "zero-include" / "cases.yaml")
    suite(tmp_path / "deep-include", "test_cases_file: cases.yaml\n")
    (tmp_path / "deep-include" / "cases.yaml").write_text(
        f"- {DEEP_VALUES['block-sequences']}\n", encoding="utf-8"
    )
    suite(tmp_path / "deep", CASES + f"metadata: {DEEP_VALUES['flow-mappings']}\n")
    (tmp_path / "pipe-member").mkdir()
    fifo(tmp_path / "pipe-member" / "agent.yaml")
    (tmp_path / "big-member").mkdir()
    too_big(tmp_path / "big-member" / "agent.yaml")
    return tmp_path


async def answered(request: asyncio.Future[object] | object, what: str) -> object:
    try:
        return await asyncio.wait_for(request, HANG_S)  # type: ignore[arg-type]
    except TimeoutError:
        pytest.fail(f"the server never answered {what}")


async def test_the_server_answers_on_a_hostile_workspace(
    client: LanguageClient, hostile_workspace: Path
) -> None:
    root = hostile_workspace
    await initialize(client, root=root, diagnostics="both")
    deep = open_file(client, root / "deep" / "agent.yaml")
    params = await wait_for(client, deep, lambda p: bool(p.diagnostics), timeout=HANG_S)
    assert [d.code for d in params.diagnostics] == ["HD003"]
    for folder, words in (("pipe-include", "named pipe"), ("zero-include", "character device")):
        agent = open_file(client, root / folder / "agent.yaml")
        params = await wait_for(client, agent, lambda p: bool(p.diagnostics), timeout=HANG_S)
        assert any(d.code == "HD141" and words in d.message for d in params.diagnostics), (
            folder,
            params.diagnostics,
        )
    open_file(client, root / "deep-include" / "agent.yaml")
    params = await wait_for(
        client, uri(root / "deep-include" / "cases.yaml"), lambda p: bool(p.diagnostics), HANG_S
    )
    assert [d.code for d in params.diagnostics] == ["HD003"]
    symbols = await answered(
        client.workspace_symbol_async(types.WorkspaceSymbolParams(query="")), "workspace/symbol"
    )
    assert symbols is not None
    report = await answered(
        client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[])),
        "workspace/diagnostic",
    )
    assert isinstance(report, types.WorkspaceDiagnosticReport)
    codes = {item.uri: [d.code for d in getattr(item, "items", [])] for item in report.items}
    assert codes.get(deep) == ["HD003"], codes
    assert codes.get(uri(root / "deep-include" / "cases.yaml")) == ["HD003"], codes
    hover = client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=deep),
            position=types.Position(line=0, character=1),
        )
    )
    await answered(hover, "hover on the deep file")
    pipe_agent = types.TextDocumentIdentifier(uri=uri(root / "pipe-include" / "agent.yaml"))
    await answered(
        client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=pipe_agent)
        ),
        "documentSymbol beside a pipe",
    )
    await answered(
        client.text_document_hover_async(
            types.HoverParams(
                text_document=pipe_agent, position=types.Position(line=6, character=20)
            )
        ),
        "hover on a pipe's test_cases_file",
    )
    links = client.text_document_document_link_async(
        types.DocumentLinkParams(
            text_document=types.TextDocumentIdentifier(
                uri=uri(root / "pipe-include" / "agent.yaml")
            )
        )
    )
    await answered(links, "documentLink beside a pipe")
