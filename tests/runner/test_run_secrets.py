"""`holodeck-lsp run` keeps secrets out of everything it writes — the same leaky suite as the
editor's test (tests/server/test_server_run_secrets.py): a tool echoing the API key, a
`${VAR}` of the instructions repeated by the model, a backend error quoting the key. Checked
in the JSON, Markdown, HTML and JUnit reports, the recorded cassette, stdout and stderr."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.leaky_suite import ENV, MASK, assert_masked, leaky_replies, write_leaky_suite
from tests.fakes.openai_server import FakeOpenAIServer
from tests.runner.test_run_cli_live import child_env, read_report, run_cli


async def test_the_cli_masks_every_secret_in_every_output(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    agent = write_leaky_suite(tmp_path / "suite", f"{fake_openai.base_url}/v1")
    fake_openai.script(*leaky_replies())
    out = {name: tmp_path / name for name in ("r.json", "r.md", "r.xml", "r.html", "tape.json")}
    done = await run_cli(
        [
            str(agent),
            "--parallel",
            "1",
            "--report-json",
            str(out["r.json"]),
            "--report-md",
            str(out["r.md"]),
            "--junit",
            str(out["r.xml"]),
            "--report-html",
            str(out["r.html"]),
            "--record",
            str(out["tape.json"]),
        ],
        child_env(tmp_path, **ENV),
        tmp_path,
    )
    assert done.status == 1, done.err  # the backend-error case fails
    assert fake_openai.pending == 0
    # The secrets really were in play: the model was sent the substituted instructions.
    assert ENV["LEAKY_CODE_WORD"] in json.dumps(fake_openai.chat_requests[0].body)

    report = read_report(out["r.json"])
    echo, instructions, error = report.results
    [call] = echo.tool_invocations
    assert call.name == "tools-reveal" and call.result == MASK
    assert instructions.agent_response == f"The code word is {MASK}."
    assert error.passed is False and any(MASK in e for e in error.errors), error.errors
    tape = json.loads(out["tape.json"].read_text(encoding="utf-8"))
    assert tape["cases"][0]["turns"][0]["tool_calls"][0]["result"] == MASK
    assert "reveal called with ***" in done.err  # the tool's log line, masked

    files = [path.read_text(encoding="utf-8") for path in out.values()]
    assert_masked(*files, done.out, done.err)

    # The run history: the stored report, recording, journal and run.json are masked as well.
    from holodeck_lsp.runner.run_history import resolve, runs_folder

    stored = resolve("latest", runs_folder(agent))
    saved = {path.name: path.read_text(encoding="utf-8") for path in stored.folder.iterdir()}
    assert sorted(saved) == ["journal.jsonl", "recording.json", "report.json", "run.json"]
    for name in ("report.json", "recording.json", "journal.jsonl"):
        assert MASK in saved[name], name  # the secrets were there, masked
    assert stored.load_recording().cases[0].turns[0].tool_calls[0].result == MASK
    assert_masked(*saved.values())


async def test_the_aggregate_progress_display_masks_secrets_too(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    """`--progress totals` (what a large run shows): its failed-case lines and its summary of
    failed cases, with their reasons, go through the same masking as the per-case display."""
    agent = write_leaky_suite(tmp_path / "suite", f"{fake_openai.base_url}/v1")
    fake_openai.script(*leaky_replies())
    done = await run_cli(
        [str(agent), "--parallel", "1", "--progress", "totals"],
        child_env(tmp_path, **ENV),
        tmp_path,
    )
    assert done.status == 1, done.err
    assert " cases" in done.out and "turns/min" in done.out  # the totals line was printed
    assert " FAILED (" in done.out and MASK in done.out  # a failure quoting the key, masked
    assert_masked(done.out, done.err)
