"""`holodeck-lsp completion bash|zsh|fish` and the hidden `__case-names` they call.

The case names are read in-process (fast); the scripts are run by the real shells — bash
always, zsh and fish when installed (skipped otherwise) — with the real console script on
PATH, so completing `--case` starts the real `holodeck-lsp __case-names`.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from holodeck_lsp.cli import COMMANDS, help_text, main
from holodeck_lsp.commands.check import parser as check_parser
from holodeck_lsp.commands.run.options import run_parser
from holodeck_lsp.commands.shell_completion.case_names import case_names
from holodeck_lsp.commands.shell_completion.command_table import Command, find_command
from tests.cli.completion_shells import (
    bash_complete,
    bash_words,
    completion_script,
    load_script,
    run_shell,
    shell_quote,
    tab_in_terminal,
)

HEADER = """\
name: demo
model: {provider: openai, name: gpt-4o-mini}
instructions: {inline: "You are helpful."}
"""
#: Names a shell would mangle if they reached it as code or unquoted words.
ODD = 'it\'s $(touch PWNED) `touch PWNED2` "q" & ; | *'
NAMES = ["revenue growth", "revenue 2009", ODD, "total"]


def agent_text(names: list[str]) -> str:
    cases = "".join(
        f'  - name: {_yaml_string(name)}\n    input: "q"\n    ground_truth: "4"\n' for name in names
    )
    return f"{HEADER}test_cases:\n{cases}"


def _yaml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    agent = tmp_path / "agent.yaml"
    agent.write_text(agent_text(NAMES), encoding="utf-8")
    return agent


# --- the table the scripts are written from (walked from the parsers) ---------------------------


def _parser_options(parser: argparse.ArgumentParser) -> dict[str, bool]:
    """Option string -> whether it takes a value."""
    return {name: action.nargs != 0 for action in parser._actions for name in action.option_strings}


def _table_options(command: Command) -> dict[str, bool]:
    return {name: option.value is not None for option in command.options for name in option.names}


def _command(name: str) -> Command:
    command = find_command(COMMANDS, name)
    assert command is not None
    return command


@pytest.mark.parametrize(("name", "build"), [("check", check_parser), ("run", run_parser)])
def test_table_has_every_option_of_the_parser(name: str, build: object) -> None:
    parser = build()  # type: ignore[operator]
    assert _table_options(_command(name)) == _parser_options(parser)
    choices = {
        option_string: tuple(action.choices)
        for action in parser._actions
        if action.choices
        for option_string in action.option_strings
    }
    table_choices = {
        option_name: option.value
        for option in _command(name).options
        if isinstance(option.value, tuple)
        for option_name in option.names
    }
    assert table_choices == choices


@pytest.mark.parametrize("name", ["serve", "schema", "report", "runs", "compare", "completion"])
def test_table_has_every_option_of_the_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([name, "--help"]) == 0
    options = capsys.readouterr().out.split("\noptions:\n")[1]  # not the description's words
    # Each option's own line starts with it; help text (which may name options) follows it.
    heads = [
        re.split(r"\s{2,}", line.strip())[0]
        for line in options.splitlines()
        if re.match(r"  -", line)  # not a wrapped help line (indented further)
    ]
    shown = {
        name
        for head in heads
        if head.startswith("-")
        for name in re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", head)
    }
    assert set(_table_options(_command(name))) == shown


def test_help_lists_completion_but_not_the_hidden_command() -> None:
    text = help_text()
    assert "completion SHELL" in text
    assert "__case-names" not in text


def test_every_command_in_help_is_completed() -> None:
    listed = {
        line.split()[0]
        for line in help_text().split("commands:\n")[1].split("\n\n")[0].splitlines()
        if not line.strip().startswith("(none)")
    }
    assert listed == {command.name for command in COMMANDS}


def test_unknown_shell_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "tcsh"]) == 2
    assert "invalid choice: 'tcsh'" in capsys.readouterr().err


# --- __case-names ------------------------------------------------------------------------------


def test_names_in_file_order_once(tmp_path: Path, suite: Path) -> None:
    other = tmp_path / "more" / "agent.yaml"
    other.parent.mkdir()
    other.write_text(agent_text(["total", "cash flow"]), encoding="utf-8")
    assert list(case_names([str(suite)])) == NAMES
    assert list(case_names([str(suite), str(tmp_path / "more")])) == [*NAMES, "cash flow"]
    # A folder stands for its agent files, as for `run`.
    assert set(case_names([str(tmp_path)])) == {*NAMES, "cash flow"}


def test_names_of_an_included_cases_file(tmp_path: Path) -> None:
    (tmp_path / "cases.yaml").write_text(
        'test_cases:\n  - name: "from the include"\n    input: "q"\n    ground_truth: "4"\n',
        encoding="utf-8",
    )
    agent = tmp_path / "agent.yaml"
    agent.write_text(f"{HEADER}test_cases_file: cases.yaml\n", encoding="utf-8")
    assert list(case_names([str(agent)])) == ["from the include"]


def test_missing_paths_and_broken_files_give_nothing(tmp_path: Path, suite: Path) -> None:
    broken = tmp_path / "broken" / "agent.yaml"
    broken.parent.mkdir()
    broken.write_text(HEADER + "test_cases: [\n", encoding="utf-8")
    assert list(case_names([str(tmp_path / "agen")])) == []  # still being typed
    assert list(case_names([str(broken)])) == []
    assert list(case_names([str(tmp_path / "agen"), str(suite)])) == NAMES


def test_runs_no_project_code(tmp_path: Path) -> None:
    """Graders and function tools are read, never imported: a Tab must not run code."""
    marker = tmp_path / "IMPORTED"
    side_effect = f"open({str(marker)!r}, 'w').close()\n"
    (tmp_path / "graders.py").write_text(
        side_effect + "def exact(test_case, output):\n    return 1.0\n", encoding="utf-8"
    )
    (tmp_path / "tools.py").write_text(
        side_effect + "def add(a: int, b: int) -> int:\n    return a + b\n", encoding="utf-8"
    )
    agent = tmp_path / "agent.yaml"
    agent.write_text(
        HEADER
        + "tools:\n"
        + "  - {name: add, type: function, description: add, file: tools.py, function: add}\n"
        + 'evaluations:\n  metrics:\n    - {type: code, grader: "graders:exact"}\n'
        + 'test_cases:\n  - name: graded\n    input: q\n    ground_truth: "4"\n',
        encoding="utf-8",
    )
    assert list(case_names([str(agent)])) == ["graded"]
    assert not marker.exists()


def test_a_name_holding_a_secret_is_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    planted = "sk-planted-4f2a9c"
    monkeypatch.setenv("CASE_SUFFIX", planted)
    monkeypatch.setenv("VENDOR_API_KEY", "tok-planted-77e1")
    agent = tmp_path / "agent.yaml"
    agent.write_text(
        agent_text(["plain", "with ${CASE_SUFFIX}", "key tok-planted-77e1"]), encoding="utf-8"
    )
    assert main(["__case-names", "--", str(agent)]) == 0
    out = capsysbinary.readouterr().out
    assert out == b"plain\0"
    assert planted.encode() not in out


def test_output_is_nul_separated_utf8(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    agent = tmp_path / "agent.yaml"
    agent.write_text(agent_text(["two\nlines", "café ✓"]), encoding="utf-8")
    assert main(["__case-names", str(agent)]) == 0
    assert capsysbinary.readouterr().out == "two\nlines\0café ✓\0".encode()


def test_case_names_load_no_schema(suite: Path) -> None:
    """What keeps a Tab fast (bench/completion_speed.py): the names come from the YAML alone,
    so the command never imports pydantic or the agent schema."""
    code = (
        "import sys\n"
        "from holodeck_lsp.cli import main\n"
        f"main(['__case-names', '--', {str(suite)!r}])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'"
        " or m.startswith(('holodeck_lsp.schema.agent', 'holodeck_lsp.checker.loader')))\n"
        "sys.stderr.write(repr(heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    assert done.stdout.split(b"\0")[:-1] == [name.encode() for name in NAMES]
    assert done.stderr == b"[]"


# --- the scripts in real shells ------------------------------------------------------------------


@pytest.mark.slow
def test_bash_completes_case_names_quoted_for_the_line(suite: Path) -> None:
    cwd = suite.parent
    replies = bash_complete(cwd, ["holodeck-lsp", "run", "agent.yaml", "--case", ""])
    assert len(replies) == len(NAMES)
    # Inserted as typed, each reply is one word that reads back as the name; nothing ran.
    assert bash_words(cwd, replies) == NAMES
    assert not (cwd / "PWNED").exists() and not (cwd / "PWNED2").exists()
    assert bash_complete(cwd, ["holodeck-lsp", "run", "agent.yaml", "--case", "rev"]) == [
        "revenue\\ growth",
        "revenue\\ 2009",
    ]
    # The word as typed so far may be escaped or inside an open quote.
    assert bash_complete(cwd, ["holodeck-lsp", "run", "agent.yaml", "--case", "revenue\\ g"]) == [
        "revenue\\ growth"
    ]
    assert bash_complete(cwd, ["holodeck-lsp", "run", "agent.yaml", "--case", "'it"]) == [
        ODD.replace("'", "'\\''")
    ]
    assert bash_complete(cwd, ["holodeck-lsp", "run", "agent.yaml", "--case", '"it']) == [
        'it\'s \\$(touch PWNED) \\`touch PWNED2\\` \\"q\\" & ; | *"'
    ]


@pytest.mark.slow
def test_bash_finds_the_agent_file_among_options(suite: Path) -> None:
    cwd = suite.parent
    (cwd / "sub").mkdir()
    suite.rename(cwd / "sub" / "my agent.yaml")
    line = ["holodeck-lsp", "run", "--parallel", "2", "sub/my\\ agent.yaml", "-x", "--case", "t"]
    assert bash_complete(cwd, line) == ["total"]
    # Quoted path, --case before another --case's value, and ~ for the home folder.
    line = ["holodeck-lsp", "run", '"sub/my agent.yaml"', "--case", "total", "--case", "t"]
    assert bash_complete(cwd, line) == ["total"]
    line = ["holodeck-lsp", "run", "~/sub/'my agent.yaml'", "--case", "t"]
    assert bash_complete(cwd, line) == ["total"]
    # No agent file on the line yet: nothing to offer (and no error printed).
    assert bash_complete(cwd, ["holodeck-lsp", "run", "--case", ""]) == []


@pytest.mark.slow
def test_bash_completes_commands_options_choices_and_files(suite: Path) -> None:
    cwd = suite.parent
    (cwd / "cassette.json").write_text("{}", encoding="utf-8")
    # The install line as docs/cli.md gives it; the other completions source the same script
    # from a file (tests/cli/completion_shells.py).
    commands = [c.name for c in COMMANDS]
    assert bash_complete(cwd, ["holodeck-lsp", ""], as_installed=True) == commands
    assert bash_complete(cwd, ["holodeck-lsp", "r"]) == ["run", "report", "runs"]
    assert bash_complete(cwd, ["holodeck-lsp", "--v"]) == ["--version"]
    assert bash_complete(cwd, ["holodeck-lsp", "run", "agent.yaml", "--rep"]) == [
        "--repeat",
        "--replay",
        "--replay-user",
        "--report-json",
        "--report-md",
        "--report-html",
    ]
    assert bash_complete(cwd, ["holodeck-lsp", "check", "--format", ""]) == [
        "text",
        "json",
        "sarif",
        "github",
    ]
    assert bash_complete(cwd, ["holodeck-lsp", "run", "agent.yaml", "--replay", "cas"]) == [
        "cassette.json"
    ]
    assert bash_complete(cwd, ["holodeck-lsp", "check", "ag"]) == ["agent.yaml"]
    assert bash_complete(cwd, ["holodeck-lsp", "completion", ""]) == ["bash", "zsh", "fish"]
    assert bash_complete(cwd, ["holodeck-lsp", "run", "agent.yaml", "--turn", ""]) == []


@pytest.mark.slow
def test_bash_tab_in_a_real_terminal_inserts_the_name(suite: Path) -> None:
    cwd = suite.parent
    start = "holodeck-lsp run agent.yaml --case "
    for typed in ("it", "'it", '"it'):
        assert tab_in_terminal(cwd, start + typed, "|")[-1:] == [ODD], typed
    assert tab_in_terminal(cwd, start + "revenue\\ g", "rowth")[-1:] == ["revenue growth"]
    assert not (cwd / "PWNED").exists() and not (cwd / "PWNED2").exists()


ZSH = shutil.which("zsh")
FISH = shutil.which("fish")


@pytest.mark.slow
@pytest.mark.skipif(ZSH is None, reason="zsh is not installed")
def test_zsh_completes_case_names(suite: Path) -> None:
    """zsh's `compadd` only works inside a completion widget: replaced here by a function that
    prints what it was given, the values of `-a ARRAY` included."""
    cwd = suite.parent
    assert ZSH is not None
    script = completion_script("zsh").read_text(encoding="utf-8")
    assert run_shell([ZSH, "-n", "-c", script], cwd) == ""

    def complete(words: list[str], as_installed: bool = False) -> list[str]:
        quoted = " ".join(shell_quote(word) for word in words)
        program = (
            "compdef() { :; }\n"
            f"{load_script('zsh', as_installed)}\n"
            "compadd() { while (( $# )); do\n"
            '  if [[ $1 == -a ]]; then print -rl -- "${(@P)2}"; shift\n'
            '  elif [[ $1 == -- ]]; then shift; print -rl -- "$@"; return; fi\n'
            "  shift; done }\n"
            "_files() { print -r -- '(files)' }\n"
            '_describe() { print -rl -- "${(@P)4}" }\n'
            f"words=({quoted}); CURRENT={len(words)}; PREFIX={shell_quote(words[-1])}\n"
            "_holodeck_lsp\n"
        )
        return run_shell([ZSH, "-f", "-c", program], cwd).splitlines()

    line = ["holodeck-lsp", "run", "agent.yaml", "--case", ""]
    assert complete(line, as_installed=True) == NAMES  # the line docs/cli.md gives
    assert complete(["holodeck-lsp", "run", "'agent.yaml'", "-x", "--case", ""]) == NAMES
    assert not (cwd / "PWNED").exists()
    assert complete(["holodeck-lsp", "check", "--color", ""]) == ["auto", "always", "never"]
    assert complete(["holodeck-lsp", "run", "agent.yaml", "--record", ""]) == ["(files)"]
    assert complete(["holodeck-lsp", "run", "agent.yaml", "-"])[:3] == ["-h", "--help", "--case"]
    assert complete(["holodeck-lsp", ""])[0] == (
        "check:check agent files: every load-time fault at its position"
    )
    # A help text with a quote in it (from the parser) stays one word.
    assert complete(["holodeck-lsp", ""])[1] == "run:run agents' test cases against the agent"


@pytest.mark.slow
@pytest.mark.skipif(FISH is None, reason="fish is not installed")
def test_fish_completes_case_names(suite: Path) -> None:
    cwd = suite.parent
    assert FISH is not None

    def complete(line: str, as_installed: bool = False) -> list[str]:
        program = f"{load_script('fish', as_installed)}\ncomplete -C {shell_quote(line)}\n"
        return [
            entry.split("\t")[0]
            for entry in run_shell([FISH, "-N", "-c", program], cwd).splitlines()
        ]

    # The first through `| source`, as a user tries the script out; the rest from its file.
    assert complete("holodeck-lsp run agent.yaml --case ", as_installed=True) == sorted(NAMES)
    assert complete("holodeck-lsp run 'agent.yaml' --parallel 2 --case rev") == [
        "revenue 2009",
        "revenue growth",
    ]
    assert not (cwd / "PWNED").exists()
    assert "run" in complete("holodeck-lsp ")
    assert complete("holodeck-lsp check --format ") == ["github", "json", "sarif", "text"]
    assert complete("holodeck-lsp check ag") == ["agent.yaml"]
