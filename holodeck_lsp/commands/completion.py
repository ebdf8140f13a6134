"""`holodeck-lsp completion bash|zsh|fish`: print the shell's completion script (docs/cli.md
says how to install it). The scripts are written from the commands' argparse parsers, which
cli.py's command table names (shell_completion/command_table.py)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from holodeck_lsp.commands.shell_completion.command_table import (
    SHELLS,
    Command,
    Subcommand,
    commands,
)
from holodeck_lsp.exit_codes import EXIT_BAD_INPUT, EXIT_OK


def completion_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="holodeck-lsp completion",
        description="Print a completion script for your shell. Install it with, in ~/.bashrc: "
        'eval "$(holodeck-lsp completion bash)"; in ~/.zshrc: '
        'eval "$(holodeck-lsp completion zsh)"; for fish: holodeck-lsp completion fish > '
        "~/.config/fish/completions/holodeck-lsp.fish (see docs/cli.md).",
    )
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    return parser


def main(argv: Sequence[str], subcommands: Sequence[Subcommand]) -> int:
    """`subcommands`: cli.py's command table (the commands below cli.py cannot import it)."""
    try:
        options = completion_parser().parse_args(list(argv))
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_BAD_INPUT
    sys.stdout.write(script(options.shell, commands(subcommands)))
    return EXIT_OK


def script(shell: str, table: tuple[Command, ...]) -> str:
    if shell == "bash":
        from holodeck_lsp.commands.shell_completion.bash import script as bash_script

        return bash_script(table)
    if shell == "zsh":
        from holodeck_lsp.commands.shell_completion.zsh import script as zsh_script

        return zsh_script(table)
    from holodeck_lsp.commands.shell_completion.fish import script as fish_script

    return fish_script(table)
