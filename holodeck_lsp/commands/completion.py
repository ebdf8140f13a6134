"""`holodeck-lsp completion bash|zsh|fish`: print the shell's completion script (docs/cli.md
says how to install it). The scripts live in shell_completion/."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from holodeck_lsp.commands.shell_completion.command_table import SHELLS
from holodeck_lsp.exit_codes import EXIT_BAD_INPUT, EXIT_OK


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="holodeck-lsp completion",
        description="Print a completion script for your shell. Install it with, in ~/.bashrc: "
        'eval "$(holodeck-lsp completion bash)"; in ~/.zshrc: '
        'eval "$(holodeck-lsp completion zsh)"; for fish: holodeck-lsp completion fish > '
        "~/.config/fish/completions/holodeck-lsp.fish (see docs/cli.md).",
    )
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    try:
        options = parser.parse_args(list(argv))
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_BAD_INPUT
    sys.stdout.write(script(options.shell))
    return EXIT_OK


def script(shell: str) -> str:
    if shell == "bash":
        from holodeck_lsp.commands.shell_completion.bash import script as bash_script

        return bash_script()
    if shell == "zsh":
        from holodeck_lsp.commands.shell_completion.zsh import script as zsh_script

        return zsh_script()
    from holodeck_lsp.commands.shell_completion.fish import script as fish_script

    return fish_script()
