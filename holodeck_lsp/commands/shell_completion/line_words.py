"""The words of a command line as the completion scripts pass them to `__run-refs` and
`__models` (unquoted, the word being completed left out): which are positional arguments and
which are option values. Done here, once, rather than in three shell languages.

Which options take a value the script itself says (`--valued SPEC`, written into the script
from the parsers, command_table.py), so a Tab builds no parser: building `run`'s imports
half the run core, and a Tab must stay as quick as the hidden command's own reading.
SPEC is the command's options taking a value, space-separated, the names of one option
joined by `,`, a trailing `+` on one that may take a second value (`runs --tag NAME [RUN]`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from holodeck_lsp.commands.shell_completion.command_table import Command


@dataclass(frozen=True, slots=True)
class Line:
    command: str
    positionals: list[str] = field(default_factory=list)
    #: Option name (as the parser spells it first) -> its values, in order.
    values: dict[str, list[str]] = field(default_factory=dict)

    def last(self, option: str) -> str | None:
        given = self.values.get(option)
        return given[-1] if given else None


@dataclass(frozen=True, slots=True)
class Valued:
    """An option taking a value: its first name, and whether a second value may follow."""

    first: str
    second: bool = False


def valued_spec(command: Command) -> str:
    """SPEC for `command`, as the scripts pass it (see the module's docstring)."""
    return " ".join(
        ",".join(option.names) + ("+" if option.then is not None else "")
        for option in command.options
        if option.value is not None
    )


def read_spec(spec: str) -> dict[str, Valued]:
    """Each name of SPEC -> its option."""
    valued: dict[str, Valued] = {}
    for entry in spec.split():
        names = entry.removesuffix("+").split(",")
        for name in names:
            valued[name] = Valued(names[0], entry.endswith("+"))
    return valued


def read_line(command: str, words: Sequence[str], valued: dict[str, Valued]) -> Line:
    """`words` are those after the subcommand; `valued` its options taking a value
    (`read_spec`). An unknown command or option is read as argparse would not bother to:
    words only, nothing raised (the line is still being typed)."""
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
        if option.second and second is not None and not second.startswith("-"):
            taken = words[index : index + 2]
        index += len(taken)
        if taken:  # not the option whose value is being typed
            line.values.setdefault(option.first, []).extend(taken)
    return line


@dataclass(frozen=True, slots=True)
class Request:
    """What a script asks a hidden command: `[--kind K] [--valued SPEC] [--describe] --
    COMMAND WORD…`."""

    kind: str | None
    describe: bool
    line: Line | None


def read_request(argv: Sequence[str]) -> Request:
    args = list(argv)
    kind: str | None = None
    spec, describe = "", False
    while args and args[0] != "--":
        flag = args.pop(0)
        if flag == "--describe":
            describe = True
        elif flag in ("--kind", "--valued") and args:
            value = args.pop(0)
            kind, spec = (value, spec) if flag == "--kind" else (kind, value)
    words = args[1:]
    line = read_line(words[0], words[1:], read_spec(spec)) if words else None
    return Request(kind, describe, line)
