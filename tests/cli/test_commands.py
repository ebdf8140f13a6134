"""The command line as a user meets it, through the installed console script (a real process):
subcommands and the old flags, option order, exit codes, the typo error, syntax errors, fixes,
colour on a terminal and not in a pipe, `--watch` picking up a save.

Where a parametrised test checks the same behaviour several times (each command's help, each
option order), one case starts the console script and the others run the same command in this
process (tests/runner/in_process_cli.py): the parsing is the command's own, and each child
spends ~0.3 CPU-s (a sample replay ~1.9) starting."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.runner.in_process_cli import cli_in_process_now

# The console script as a process per test: run by CI and by `pytest FILE`, not the loop.
pytestmark = pytest.mark.slow

SCRIPT = Path(sys.executable).with_name("holodeck-lsp")
ROOT = Path(__file__).resolve().parents[2]

VALID = """\
name: demo
model: {provider: openai, name: gpt-4o-mini}
instructions: {inline: "You are helpful."}
test_cases:
  - name: t1
    input: "What is 2+2?"
    ground_truth: "4"
"""
TYPO = """\
name: demo
model: {provider: openai, name: gpt-4o-mini}
instructions: {inline: "You are helpful."}
tools:
  - {name: subtract, type: function, file: tools.py, function: subtract, description: d}
test_cases:
  - name: t1
    input: "Change?"
    ground_truth: 25587
    expected_tools:
      - name: subtract
        args: {a: {fuzy: "60.94"}}
"""
TOOLS = "def subtract(a: float, b: float) -> float:\n    return a - b\n"


@pytest.fixture(autouse=True)
def _installed() -> None:
    if not SCRIPT.exists():
        pytest.skip("holodeck-lsp is not installed in this environment (pip install -e .)")


def run(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **(env or {})}
    environment.pop("NO_COLOR", None)
    return subprocess.run(
        [str(SCRIPT), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
        env=environment,
    )


def run_here(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`run`'s command in this process (see the module docstring), answered in its shape."""
    environment = dict(os.environ)
    environment.pop("NO_COLOR", None)
    done = cli_in_process_now(list(args), cwd, environment)
    return subprocess.CompletedProcess(list(args), done.status, done.out, done.err)


def write(folder: Path, text: str = VALID, name: str = "agent.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# --- help and the command layout --------------------------------------------------------------


def test_top_level_help_lists_every_command_and_the_exit_codes(tmp_path: Path) -> None:
    done = run("--help", cwd=tmp_path)
    assert done.returncode == 0
    out = done.stdout
    for command in ("check PATH…", "run PATH…", "serve", "schema", "(none)"):
        assert f"\n  {command}" in out, command
    for code in ("0", "1", "2", "3"):
        assert f"\n  {code}  " in out
    assert "--check PATH…" in out  # the old spelling is still explained


@pytest.mark.parametrize(
    "command", ["check", "run", "serve", "schema", "report", "runs", "compare", "completion"]
)
def test_each_command_has_its_help(tmp_path: Path, command: str) -> None:
    # `check`'s through the console script; the others' in this process.
    done = (run if command == "check" else run_here)(command, "--help", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout.startswith(f"usage: holodeck-lsp {command}")


def test_compare_of_two_runs_of_the_sample_exits_1_on_a_regression(tmp_path: Path) -> None:
    """`holodeck-lsp run` twice on a copy of the sample (its recording, then the same recording
    with one right answer made wrong), then `compare`: previous against latest, one regression
    named with its reason, exit 1; `--allow-regressions` reports it and exits 0."""
    import shutil

    folder = tmp_path / "fa"
    shutil.copytree(ROOT / "sample" / "financial-assistant", folder,
                    ignore=shutil.ignore_patterns(".holodeck"))  # fmt: skip
    good = folder / "cassettes" / "oracle.json"
    recording = json.loads(good.read_text(encoding="utf-8"))
    turn = recording["cases"][0]["turns"][1]  # a turn the recording answers right
    turn["response"] = "wrong"
    bad = folder / "worse.json"
    bad.write_text(json.dumps(recording), encoding="utf-8")
    # The first replay through the console script, the second in this process (the stored
    # run is what `compare` reads); `compare` as CI runs it.
    for cassette, through in ((good, run), (bad, run_here)):
        done = through("run", ".", "--replay", str(cassette), "--quiet", cwd=folder)
        assert done.returncode == 1, done.stderr  # the recording fails 6 cases on purpose
    compared = run("compare", "--color", "never", cwd=folder)
    assert compared.returncode == 1, compared.stderr
    assert "Regressions (1)" in compared.stdout, compared.stdout
    assert run("compare", "--allow-regressions", cwd=folder).returncode == 0


def test_an_unknown_command_exits_2_and_names_the_commands(tmp_path: Path) -> None:
    done = run("chek", "agent.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert "unknown command 'chek'" in done.stderr
    assert "check, run, serve, schema" in done.stderr


def test_schema_command_and_old_flag_print_the_same(tmp_path: Path) -> None:
    new, old = run("schema", cwd=tmp_path), run("--schema", cwd=tmp_path)
    assert new.returncode == old.returncode == 0
    assert new.stdout == old.stdout
    assert json.loads(new.stdout)["title"] == "HoloDeck agent.yaml"


def test_serve_rejects_a_port_without_tcp(tmp_path: Path) -> None:
    done = run("serve", "--port", "1234", cwd=tmp_path)
    assert done.returncode == 2
    assert "--host and --port only apply to --tcp" in done.stderr


# --- check: both spellings, options anywhere ---------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "agent.yaml", "--format", "json"],
        ["check", "--format", "json", "agent.yaml"],
        ["--check", "agent.yaml", "--format", "json"],
        # The old flag took every following word as a path: this used to fail.
        ["--check", "--format", "json", "agent.yaml"],
        ["--format", "json", "--check", "agent.yaml"],
    ],
)
def test_check_options_before_or_after_the_paths(tmp_path: Path, argv: list[str]) -> None:
    write(tmp_path)
    # The old flag's hardest order through the console script; the others in this process.
    real = argv == ["--check", "--format", "json", "agent.yaml"]
    done = (run if real else run_here)(*argv, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["files"][0]["path"] == "agent.yaml"


def test_options_between_paths(tmp_path: Path) -> None:
    write(tmp_path / "a")
    write(tmp_path / "b")
    done = run("check", "a", "--strict", "b", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("0 errors, 0 warnings in 2 files\n")


def test_a_folder_without_agent_files_exits_2_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "notes.yaml").write_text("a: 1\n", encoding="utf-8")
    done = run("check", ".", cwd=tmp_path)
    assert done.returncode == 2
    assert "no agent files found under ." in done.stderr
    assert "agent.yaml or *.agent.yaml" in done.stderr


def test_a_misspelt_matcher_kind_fails_the_check(tmp_path: Path) -> None:
    write(tmp_path, TYPO)
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    done = run("check", "agent.yaml", cwd=tmp_path)
    assert done.returncode == 2
    line = next(line for line in done.stdout.splitlines() if "[HD125]" in line)
    assert line.startswith("agent.yaml:12:20: error: ")
    assert "did you mean `fuzzy`?" in line


def test_a_syntax_error_is_shown_where_a_person_fixes_it(tmp_path: Path) -> None:
    write(tmp_path, VALID.replace('"You are helpful."', '"You are helpful.'))
    done = run("check", "agent.yaml", cwd=tmp_path)
    assert done.returncode == 2
    # The string opened on line 3 swallows the lines up to the next quote (line 6).
    assert done.stdout.startswith(
        "agent.yaml:3:24: error: YAML syntax error: this string is never closed on its line"
    )


# --- --fix and --diff ----------------------------------------------------------------------------


def test_diff_shows_the_quick_fixes_and_writes_nothing(tmp_path: Path) -> None:
    path = write(tmp_path, TYPO)
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    done = run("check", "--diff", "agent.yaml", cwd=tmp_path)
    assert done.returncode == 2  # something would change: CI can demand a fixed tree
    assert '-    ground_truth: 25587\n+    ground_truth: "25587"\n' in done.stdout
    assert '+        args: {a: {fuzzy: "60.94"}}\n' in done.stdout
    assert done.stdout.startswith("--- a/agent.yaml\n+++ b/agent.yaml\n")
    assert path.read_text(encoding="utf-8") == TYPO


def test_fix_applies_the_safe_fixes_prints_them_and_checks_again(tmp_path: Path) -> None:
    path = write(tmp_path, TYPO)
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    done = run("check", "agent.yaml", "--fix", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'agent.yaml:9:19: fixed: Quote the value: 25587 -> "25587" [HD102]' in done.stdout
    assert "agent.yaml:12:20: fixed: Change to 'fuzzy': fuzy -> fuzzy [HD125]" in done.stdout
    assert done.stdout.endswith("0 errors, 0 warnings in 1 file\n")
    fixed = path.read_text(encoding="utf-8")
    assert 'ground_truth: "25587"' in fixed and '{fuzzy: "60.94"}' in fixed
    again = run("check", "agent.yaml", "--diff", cwd=tmp_path)
    assert again.returncode == 0 and again.stdout == ""
    assert "nothing to fix safely" in again.stderr


# --- colour -------------------------------------------------------------------------------------


def _on_a_terminal(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run with stdout on a pseudo-terminal; what it printed there."""
    leader, follower = pty.openpty()
    environment = {**os.environ, **env}
    process = subprocess.Popen(
        [str(SCRIPT), *args], stdout=follower, stderr=subprocess.DEVNULL, cwd=cwd, env=environment
    )
    os.close(follower)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        elif process.poll() is not None:
            break
    process.wait(timeout=30)
    os.close(leader)
    return b"".join(chunks).decode("utf-8")


def test_colour_on_a_terminal_not_in_a_pipe_and_never_with_no_color(tmp_path: Path) -> None:
    write(tmp_path, VALID.replace('ground_truth: "4"', "ground_truth: 4"))
    red_error = "\x1b[31;1merror\x1b[0m"
    env = {"TERM": "xterm"}
    assert red_error in _on_a_terminal(["check", "agent.yaml"], tmp_path, env)
    assert red_error not in _on_a_terminal(
        ["check", "agent.yaml"], tmp_path, {**env, "NO_COLOR": "1"}
    )
    assert "\x1b[" not in _on_a_terminal(["check", "agent.yaml", "--color", "never"], tmp_path, env)
    piped = run("check", "agent.yaml", cwd=tmp_path)
    assert "\x1b[" not in piped.stdout and ": error: " in piped.stdout
    forced = run("check", "agent.yaml", "--color", "always", cwd=tmp_path)
    assert red_error in forced.stdout


# --- --watch ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_watch_checks_again_after_a_save(tmp_path: Path) -> None:
    path = write(tmp_path)
    process = subprocess.Popen(
        [str(SCRIPT), "check", "agent.yaml", "--watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=tmp_path,
    )
    try:
        assert process.stdout is not None
        fd = process.stdout.fileno()
        output, cursor = "", 0

        def until(text: str) -> None:
            # Raw reads: a buffered reader would hide lines from select().
            nonlocal output, cursor
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                found = output.find(text, cursor)
                if found >= 0:
                    cursor = found + len(text)
                    return
                ready, _, _ = select.select([fd], [], [], 0.5)
                if ready:
                    output += os.read(fd, 65536).decode("utf-8")
            raise AssertionError(f"{text!r} never came; got {output!r}")

        until("watching for changes")
        time.sleep(0.05)  # a new mtime even on coarse-grained file systems
        path.write_text(VALID.replace('ground_truth: "4"', "ground_truth: 4"), encoding="utf-8")
        until("change seen")
        until("1 error, 0 warnings in 1 file")
    finally:
        process.terminate()  # the test's own child; the watch runs until stopped
        process.wait(timeout=10)
    assert output.startswith("0 errors, 0 warnings in 1 file\n")
