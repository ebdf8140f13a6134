"""The fish completion script (`holodeck-lsp completion fish >
~/.config/fish/completions/holodeck-lsp.fish`)."""

from __future__ import annotations

from holodeck_lsp.commands.shell_completion.command_table import (
    CASE,
    FILE,
    MODEL,
    RUN_KINDS,
    RUN_OR_FILE,
    TOP_OPTIONS,
    Command,
    Option,
    with_hidden_commands,
)
from holodeck_lsp.commands.shell_completion.line_words import valued_spec

# fish escapes what it inserts itself; the helper only has to find the paths on the line.
# `commandline -opc` gives the tokens before the cursor with their quotes removed.
_HELPERS = r"""
function __holodeck_lsp_cases
    set -l tokens (commandline -opc)
    set -l cmd
    set -l paths
    set -l skip 0
    for token in $tokens[2..-1]
        if test $skip -eq 1
            set skip 0
            continue
        end
        if test -z "$cmd"
            string match -q -- '-*' $token; or set cmd $token
            continue
        end
        if string match -q -- '-*' $token
            contains -- "$cmd $token" $__holodeck_lsp_valued; and set skip 1
        else
            set -a paths $token
        end
    end
    test (count $paths) -gt 0; or return 0
    command $tokens[1] __CASE_NAMES__ -- $paths 2>/dev/null | string split0
end

# The words after the subcommand go to __RUN_REFS__ / __MODELS__ as they are: those commands
# read the line themselves (which agent's history, which holodeck-lsp.yaml). Each answer is
# "value<TAB>description", which fish shows as such; `-k` keeps the order given.
function __holodeck_lsp_words
    set -l tokens (commandline -opc)
    set -l cmd
    for token in $tokens[2..-1]
        if test -z "$cmd"
            string match -q -- '-*' $token; or set cmd $token
            continue
        end
        set -a argv $token
    end
    printf '%s\n' $cmd $argv
end

function __holodeck_lsp_refs --argument-names kind
    set -l program (commandline -opc)[1]
    set -l words (__holodeck_lsp_words)
    set -l valued (__holodeck_lsp_valued $words[1])
    command $program __RUN_REFS__ --kind $kind --valued "$valued" --describe -- $words \
        2>/dev/null | string split0
end

function __holodeck_lsp_models
    set -l program (commandline -opc)[1]
    set -l words (__holodeck_lsp_words)
    set -l valued (__holodeck_lsp_valued $words[1])
    command $program __MODELS__ --valued "$valued" --describe -- $words 2>/dev/null | string split0
end

# __holodeck_lsp_second OPTION: the word being typed is the second one after OPTION
# (`runs --tag NAME RUN`).
function __holodeck_lsp_second --argument-names option
    set -l tokens (commandline -opc)
    test (count $tokens) -ge 2; and test "$tokens[-2]" = "$option"
    and not string match -q -- '-*' $tokens[-1]
end
"""


def script(table: tuple[Command, ...]) -> str:
    valued = [
        f"'{command.name} {name}'"
        for command in table
        for option in command.options
        if option.value is not None
        for name in option.names
    ]
    lines = [
        "# fish completion for holodeck-lsp, written by `holodeck-lsp completion fish`.",
        "# Install: holodeck-lsp completion fish > ~/.config/fish/completions/holodeck-lsp.fish",
        f"set -g __holodeck_lsp_valued {' '.join(valued)}",
        with_hidden_commands(_HELPERS),
        *_valued_function(table),
        "complete -c holodeck-lsp -f",
    ]
    for command in table:
        lines.append(
            f"complete -c holodeck-lsp -n __fish_use_subcommand -a {command.name}"
            f" -d {_quote(command.help)}"
        )
    for option in TOP_OPTIONS:
        lines.append(f"complete -c holodeck-lsp -n __fish_use_subcommand {_option(option)}")
    for command in table:
        when = f"-n '__fish_seen_subcommand_from {command.name}'"
        if command.positional == FILE:
            lines.append(f"complete -c holodeck-lsp {when} -F")
        elif command.positional in RUN_KINDS:
            lines.append(f"complete -c holodeck-lsp {when} {_values(command.positional)}")
        elif isinstance(command.positional, tuple):
            lines.append(
                f"complete -c holodeck-lsp {when} -a {_quote(' '.join(command.positional))}"
            )
        for option in command.options:
            lines.append(f"complete -c holodeck-lsp {when} {_option(option)}")
            if option.then is not None:
                second = f"-n '__fish_seen_subcommand_from {command.name}; and " + (
                    f"__holodeck_lsp_second {option.names[-1]}'"
                )
                lines.append(f"complete -c holodeck-lsp {second} {_values(option.then)}")
    lines.append("")
    return "\n".join(lines)


def _valued_function(table: tuple[Command, ...]) -> list[str]:
    """`__holodeck_lsp_valued COMMAND`: its options taking a value, for the hidden commands."""
    lines = ["function __holodeck_lsp_valued", "    switch $argv[1]"]
    for command in table:
        lines += [
            f"        case {command.name}",
            f"            echo {_quote(valued_spec(command))}",
        ]
    return [*lines, "    end", "end"]


def _option(option: Option) -> str:
    parts = []
    for name in option.names:
        if name.startswith("--"):
            parts.append(f"-l {name[2:]}")
        else:
            parts.append(f"-s {name[1:]}")
    if option.value == FILE:
        parts.append("-r -F")
    elif option.value == CASE:
        parts.append("-x -a '(__holodeck_lsp_cases)'")
    elif option.value in RUN_KINDS:
        parts.append(f"-r {_values(option.value)}")
    elif option.value == MODEL:
        parts.append("-x -k -a '(__holodeck_lsp_models)'")
    elif isinstance(option.value, tuple):
        parts.append(f"-x -a {_quote(' '.join(option.value))}")
    elif option.value is not None:
        parts.append("-x")
    if option.help:
        parts.append(f"-d {_quote(option.help)}")
    return " ".join(parts)


def _values(kind: str | tuple[str, ...] | None) -> str:
    """Where a stored run goes: the runs in order (-k), and files too for RUN_OR_FILE."""
    files = "-F" if kind == RUN_OR_FILE else "-f"
    return f"{files} -k -a '(__holodeck_lsp_refs {kind})'"


def _quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
