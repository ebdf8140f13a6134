"""The lookup functions the bash and zsh scripts share, written from the command table: what
an option's value is (`_holodeck_lsp_value COMMAND OPTION`), a command's options
(`_holodeck_lsp_options`), what an option's second value is (`_holodeck_lsp_then`, `runs --tag
NAME RUN`) and what a command's positional arguments are (`_holodeck_lsp_positional`), each
answering in REPLY. The two shells read the same `case` syntax, so one writer serves both."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from holodeck_lsp.commands.shell_completion.command_table import COMMANDS, KINDS, Command, Option


def lookup_functions() -> list[str]:
    """The four functions' lines."""
    return [
        "# _holodeck_lsp_value COMMAND OPTION: what the option's value is, in REPLY",
        "# (a kind of command_table.KINDS, or the choices; empty for a flag).",
        *_by_option("_holodeck_lsp_value", lambda option: option.value),
        *_by_command("_holodeck_lsp_options", lambda command: words(command.options)),
        *_by_option("_holodeck_lsp_then", lambda option: option.then),
        *_by_command(
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
    function: str, value_of: Callable[[Option], str | tuple[str, ...] | None]
) -> list[str]:
    lines = [f"{function}() {{", '    case "$1 $2" in']
    for command in COMMANDS:
        for option in command.options:
            value = value_of(option)
            if value is not None:
                pattern = "|".join(f"'{command.name} {name}'" for name in option.names)
                lines.append(f"        {pattern}) REPLY='{kind(value)}' ;;")
    return [*lines, "        *) REPLY='' ;;", "    esac", "}"]


def _by_command(function: str, reply_of: Callable[[Command], str | None]) -> list[str]:
    lines = [f"{function}() {{", "    case $1 in"]
    for command in COMMANDS:
        reply = reply_of(command)
        if reply is not None:
            lines.append(f"        {command.name}) REPLY='{reply}' ;;")
    return [*lines, "        *) REPLY='' ;;", "    esac", "}"]
