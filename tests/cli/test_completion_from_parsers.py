"""Shell completion is written from the commands' argparse parsers (command_table.py): a flag
added to a parser is completed — by bash, zsh and fish — with no other edit, and the few values
argparse has no word for (DYNAMIC_VALUES) name options their parsers still have."""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path

import pytest

from holodeck_lsp import cli
from holodeck_lsp.commands.run import options as run_options
from holodeck_lsp.commands.shell_completion.command_table import (
    DYNAMIC_VALUES,
    FILE,
    POSITIONAL,
    build_parser,
    find_command,
    short_help,
)
from tests.cli.completion_shells import shell_quote


def _with_new_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    """`run` grows `--widget-file FILE` (a Path) and `--widget-mode {fast,slow}`, in its parser
    only — as a developer adding a flag would."""
    original = run_options.run_parser

    def grown() -> argparse.ArgumentParser:
        parser = original()
        parser.add_argument("--widget-file", type=Path, help="read the widget from FILE")
        parser.add_argument("--widget-mode", choices=("fast", "slow"), help="how the widget runs")
        return parser

    monkeypatch.setattr(run_options, "run_parser", grown)


def _script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert cli.main(["completion", shell]) == 0
    return capsys.readouterr().out


def _run(argv: list[str], cwd: Path) -> str:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


def test_a_flag_added_to_a_parser_is_completed_by_bash(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _with_new_flag(monkeypatch)
    (tmp_path / "script.bash").write_text(_script("bash", capsys), encoding="utf-8")
    (tmp_path / "widget.json").write_text("{}", encoding="utf-8")

    def complete(*words: str) -> list[str]:
        program = (
            "source script.bash\n"
            f"COMP_WORDS=({' '.join(shell_quote(word) for word in words)})\n"
            f"COMP_CWORD={len(words) - 1}\n"
            f"COMP_LINE={shell_quote(' '.join(words))}; COMP_POINT=${{#COMP_LINE}}\n"
            '_holodeck_lsp; printf "%s\\n" "${COMPREPLY[@]}"\n'
        )
        return [line for line in _run(["bash", "-c", program], tmp_path).splitlines() if line]

    assert complete("holodeck-lsp", "run", "agent.yaml", "--widget") == [
        "--widget-file",
        "--widget-mode",
    ]
    assert complete("holodeck-lsp", "run", "--widget-file", "wid") == ["widget.json"]
    assert complete("holodeck-lsp", "run", "--widget-mode", "") == ["fast", "slow"]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_a_flag_added_to_a_parser_is_completed_by_fish(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _with_new_flag(monkeypatch)
    (tmp_path / "script.fish").write_text(_script("fish", capsys), encoding="utf-8")

    def complete(line: str) -> list[str]:
        program = f"source script.fish\ncomplete -C {shell_quote(line)}\n"
        out = _run(["fish", "-N", "-c", program], tmp_path)
        return [entry.split("\t")[0] for entry in out.splitlines()]

    assert complete("holodeck-lsp run --widget") == ["--widget-file", "--widget-mode"]
    assert complete("holodeck-lsp run --widget-mode ") == ["fast", "slow"]


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_a_flag_added_to_a_parser_is_in_the_zsh_script(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _with_new_flag(monkeypatch)
    script = _script("zsh", capsys)
    (tmp_path / "script.zsh").write_text(script, encoding="utf-8")
    program = (
        "compdef() { :; }\nsource script.zsh\n"
        "_holodeck_lsp_value run --widget-mode; print -r -- $REPLY\n"
        "_holodeck_lsp_value run --widget-file; print -r -- $REPLY\n"
        "_holodeck_lsp_options run; print -r -- $REPLY\n"
    )
    mode, file, options = _run(["zsh", "-f", "-c", program], tmp_path).splitlines()
    assert (mode, file) == ("fast slow", FILE)
    assert "--widget-file --widget-mode" in options


def test_each_dynamic_value_names_an_option_of_its_parser() -> None:
    """A renamed flag must not lose its case names or stored runs silently."""
    for command, option in DYNAMIC_VALUES:
        row = next(row for row in cli.COMMANDS if row.name == command)
        actions = build_parser(row)._actions
        if option == POSITIONAL:
            assert any(not action.option_strings for action in actions), command
        else:
            assert any(option in action.option_strings for action in actions), (command, option)


def test_every_command_of_the_table_is_completed_from_its_parser() -> None:
    for row in cli.COMMANDS:
        command = find_command(cli.COMMANDS, row.name)
        assert command is not None and command.name == row.name
        assert command.options[0].names == ("-h", "--help")
    imported = find_command(cli.COMMANDS, "import")
    assert imported is not None and imported.positional == ("convfinqa", "bfcl", "tau2", "otel")


def test_short_help_keeps_the_first_clause_and_one_line() -> None:
    assert short_help("write it to FILE (default: stdout)") == "write it to FILE"
    assert short_help("run this case; or a glob") == "run this case"
    long = short_help("word " * 40)
    assert len(long) <= 65 and long.endswith("…")
