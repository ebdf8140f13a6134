"""The lookup functions the bash and zsh scripts share, written from the command table: what an
option's value is (`_holodeck_lsp_value COMMAND OPTION`), a command's options
(`_holodeck_lsp_options`), those taking a value as the hidden commands read them
(`_holodeck_lsp_valued`, line_words.py), what an option's second value is (`_holodeck_lsp_then`,
`runs --tag NAME RUN`) and what a command's positional arguments are
(`_holodeck_lsp_positional`), each answering in REPLY. The two shells read the same `case`
syntax, so one writer serves both."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from holodeck_lsp.commands.shell_completion.command_table import KINDS, Command, Option
from holodeck_lsp.commands.shell_completion.line_words import valued_spec


def lookup_functions(table: tuple[Command, ...]) -> list[str]:
    """The five functions' lines, for the commands of `table`."""
    return [
        "# _holodeck_lsp_value COMMAND OPTION: what the option's value is, in REPLY",
        "# (a kind of command_table.KINDS, or the choices; empty for a flag).",
        *_by_option(table, "_holodeck_lsp_value", lambda option: option.value),
        *_by_command(table, "_holodeck_lsp_options", lambda command: words(command.options)),
        *_by_command(table, "_holodeck_lsp_valued", valued_spec),
        *_by_option(table, "_holodeck_lsp_then", lambda option: option.then),
        *_by_command(
            table,
            "_holodeck_lsp_positional",
            lambda command: None if command.positional is None else kind(command.positional),
        ),
    ]


def words(options: Iterable[Option]) -> str:
    """The options' names, space-separated."""
    return " ".join(name for option in options for name in option.names)


def kind(value: str | tuple[str, ...]) -> str:
    """A value's kind as the scripts test it: the kind's name, or the choices."""
    if isinstance(value, tuple):
        return " ".join(value)
    assert value in KINDS
    return value


def _by_option(
    table: tuple[Command, ...],
    function: str,
    value_of: Callable[[Option], str | tuple[str, ...] | None],
) -> list[str]:
    lines = [f"{function}() {{", '    case "$1 $2" in']
    for command in table:
        for option in command.options:
            value = value_of(option)
            if value is not None:
                pattern = "|".join(f"'{command.name} {name}'" for name in option.names)
                lines.append(f"        {pattern}) REPLY='{kind(value)}' ;;")
    return [*lines, "        *) REPLY='' ;;", "    esac", "}"]


def _by_command(
    table: tuple[Command, ...], function: str, reply_of: Callable[[Command], str | None]
) -> list[str]:
    lines = [f"{function}() {{", "    case $1 in"]
    for command in table:
        reply = reply_of(command)
        if reply is not None:
            lines.append(f"        {command.name}) REPLY='{reply}' ;;")
    return [*lines, "        *) REPLY='' ;;", "    esac", "}"]
