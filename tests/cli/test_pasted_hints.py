"""Every command `run` and `runs` print as a hint works when pasted, as a new user would paste
it: in the agent's folder and in another one. A run stopped by a budget prints `resume with
`holodeck-lsp run --resume ID``, with no PATH: the stored run names its agent file (the run
index, runner/run_history/run_index.py, or the runs under the current folder).

Every pasted hint is a real process, as a user's would be; the stopped run that prints the
first hints runs in this process (tests/runner/in_process_cli.py, the same command, folder and
environment: what it prints and stores is the command's, and a child spends ~1.5 CPU-s
starting)."""

from __future__ import annotations

import asyncio
import re
import shlex
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.runner.in_process_cli import run_in_process
from tests.runner.test_run_cli_live import CHILD_TIMEOUT, CLI, child_env

pytestmark = pytest.mark.slow

KEY = "sk-hints-5d1e0a7c3b"
AGENT = """\
name: hinted
model: {{provider: openai, name: gpt-fake, endpoint: "{endpoint}"}}
instructions: {{inline: "Repeat the number."}}
evaluations:
  metrics:
    - {{type: standard, metric: equality}}
test_cases:
{cases}
"""
#: A command in backquotes or after "list:" — what a user would copy.
_HINT = re.compile(r"`(holodeck-lsp [^`]+)`|\(list: (holodeck-lsp [^)]+)\)")
#: A hint with a placeholder (PATH, RUN, FILE) is a pattern, not a command to paste.
_PLACEHOLDER = re.compile(r"\b[A-Z]{3,}\b")


def _agent(folder: Path, server: FakeOpenAIServer) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    cases = "\n".join(
        f'  - {{name: "case{n}", input: "{n}", ground_truth: "{n}"}}' for n in range(4)
    )
    path = folder / "agent.yaml"
    path.write_text(AGENT.format(endpoint=f"{server.base_url}/v1", cases=cases), "utf-8")
    server.responder = lambda body: Reply(text=str(body["messages"][-1]["content"]))
    return path


def hints(text: str) -> list[str]:
    found = [a or b for a, b in _HINT.findall(text)]
    return [hint for hint in found if not _PLACEHOLDER.search(hint)]


async def paste(hint: str, cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run a pasted hint as a shell would split it."""
    words = shlex.split(hint)
    assert words[0] == "holodeck-lsp"
    proc = await asyncio.create_subprocess_exec(
        CLI,
        *words[1:],
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), CHILD_TIMEOUT)
    assert proc.returncode is not None
    return proc.returncode, out.decode("utf-8")


async def _stopped_run(path: Path, env: dict[str, str]) -> str:
    """A run stopped by --max-turns after one case: unfinished, with its resume hint (run in
    this process; the hints it prints are pasted as real processes)."""
    done = await run_in_process([str(path), "--max-turns", "1"], env, path.parent.parent)
    assert "unfinished" in done.out, done.out + done.err
    return done.out + done.err


async def test_the_resume_hint_works_pasted_in_another_folder(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    path = _agent(tmp_path / "suite", fake_openai)
    env = child_env(tmp_path, OPENAI_API_KEY=KEY, XDG_CACHE_HOME=str(tmp_path / "cache"))
    printed = await _stopped_run(path, env)
    found = hints(printed)
    assert any("--resume" in hint for hint in found), printed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for hint in found:
        status, out = await paste(hint, elsewhere, env)
        assert status == 0, f"`{hint}` pasted in another folder: exit {status}\n{out}"
        if "--resume" in hint:
            assert "resuming run" in out and "4 passed" in out, out
            # Numbered by their place in the run, as the first part numbered case0 [1/4].
            assert "[2/4] case1" in out and "[4/4] case3" in out, out


async def test_runs_hints_and_the_resume_refusals_hints_work_pasted(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    """`runs`' hints pasted in the agent's folder with the run index emptied: among them the
    stopped run's own resume hint, so this also shows that hint working without the index
    (the index is a cache: the runs stored under the current folder still say it). One
    stopped run for both: each resume finishes the run it resumes."""
    path = _agent(tmp_path / "suite", fake_openai)
    env = child_env(tmp_path, OPENAI_API_KEY=KEY, XDG_CACHE_HOME=str(tmp_path / "cache"))
    printed = await _stopped_run(path, env)
    (resume,) = [hint for hint in hints(printed) if "--resume" in hint]
    status, listed = await paste(f"holodeck-lsp runs {shlex.quote(str(path))}", tmp_path, env)
    assert status == 0 and hints(listed), listed
    assert resume in hints(listed), listed
    cleared = {**env, "XDG_CACHE_HOME": str(tmp_path / "empty-cache")}
    for hint in hints(listed):
        status, out = await paste(hint, path.parent, cleared)
        assert status == 0, f"`{hint}` from `runs`: exit {status}\n{out}"
        if hint == resume:
            assert "resuming run" in out, out
    # Nothing left to resume: the refusal's own hints are commands that work.
    status, refused = await paste("holodeck-lsp run --resume", path.parent, env)
    assert status == 2 and "no unfinished run" in refused, refused
    assert hints(refused), refused
    for hint in hints(refused):
        status, out = await paste(hint, tmp_path, env)
        assert status == 0, f"`{hint}` from a refusal: exit {status}\n{out}"


async def test_run_without_path_or_resume_says_what_to_name(tmp_path: Path) -> None:
    env = child_env(tmp_path, XDG_CACHE_HOME=str(tmp_path / "cache"))
    status, out = await paste("holodeck-lsp run", tmp_path, env)
    assert status == 2 and "holodeck-lsp run PATH" in out, out
    status, out = await paste("holodeck-lsp run --resume 20990101-000000-0000", tmp_path, env)
    assert status == 2 and "no stored run '20990101-000000-0000' found" in out, out
