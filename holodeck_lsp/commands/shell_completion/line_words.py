"""The words of a command line as the completion scripts pass them to `__run-refs` and
`__models` (unquoted, the word being completed left out): which are positional arguments and
which are option values, read with the same table the scripts are written from. Done here,
once, rather than in three shell languages."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from holodeck_lsp.commands.shell_completion.command_table import COMMANDS, Option


@dataclass(frozen=True, slots=True)
class Line:
    command: str
    positionals: list[str] = field(default_factory=list)
    #: Option name (as the table spells it first) -> its values, in order.
    values: dict[str, list[str]] = field(default_factory=dict)

    def last(self, option: str) -> str | None:
        given = self.values.get(option)
        return given[-1] if given else None


def read_line(command: str, words: Sequence[str]) -> Line:
    """`words` are those after the subcommand. An unknown command or option is read as
    argparse would not bother to: words only, nothing raised (the line is still being typed)."""
    table = next((entry for entry in COMMANDS if entry.name == command), None)
    valued: dict[str, Option] = {}
    if table is not None:
        for entry in table.options:
            if entry.value is not None:
                for name in entry.names:
                    valued[name] = entry
    line = Line(command)
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            continue
        option = valued.get(word)
        if option is None:
            if not word.startswith("-") or word == "-":
                line.positionals.append(word)
            continue
        taken = words[index : index + 1]
        # An option with a second, optional value (`runs --tag NAME [RUN]`) takes the next
        # word too when it is no option.
        second = words[index + 1] if len(words) > index + 1 else None
        if option.then is not None and second is not None and not second.startswith("-"):
            taken = words[index : index + 2]
        index += len(taken)
        if taken:  # not the option whose value is being typed
            line.values.setdefault(option.names[0], []).extend(taken)
    return line
