"""What the completion scripts know about the command line — subcommands, their options and
what each option's value is — read from the argparse parsers the commands parse with, so a
flag added to a parser is completed without another edit
(tests/cli/test_completion_from_parsers.py).

The subcommands come from cli.py's one command table: each row names the function building
its parser (`Subcommand.parser`, "module:function"); cli.py hands the rows down, since nothing
below it may import it. Only the parsers asked for are built: a Tab (`__run-refs`,
`__models`) builds the parser of the command on the line, `completion bash` all of them.

Why our own walk of the parsers and not a library (docs/cli.md, "How the scripts are made"): shtab
writes bash, zsh and tcsh scripts from argparse but no fish, and its dynamic values are shell
snippets per shell — the agent files' case names, the stored runs and the models would still
be written three times; argcomplete answers each Tab by running the program with its parser,
which needs an argparse parser at the top (cli.py keeps the old `--check`, `--stdio` flags)
and pays a Python start-up and the parsers' imports on every Tab, and its fish support goes
through the same runtime call. The walk is this module; the shells' fixed parts (quoting,
reading the line) are bash.py, zsh.py, fish.py.

The kinds of value (what a Tab offers there):

    FILE         the shell's file completion (an argument of `type=Path`)
    CASE         the case names of the agent files on the line (`__case-names`)
    TEXT         free text or a number: nothing
    RUN          a stored run: its tags, `latest`, `previous`, the ids (`__run-refs`)
    RUN_OR_FILE  a stored run as RUN, or a report file (`compare BASE`, `--baseline`)
    TAG          an existing tag only (`runs --untag`)
    MODEL        PROVIDER:NAME — the providers, and the project's `models:` (`__models`)
    a tuple      those choices (an argument's `choices`)

argparse cannot say that a value is a case name or a stored run: those few are DYNAMIC_VALUES
below (a test fails when one names an option its parser no longer has). Whose run history RUN
means is decided by `__run-refs` from the whole line (run_refs.py), as the command would.
"""

from __future__ import annotations

import argparse
import importlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

# Re-exported: the scripts take every name they write from this module.
from holodeck_lsp.commands.shell_completion import CASE_NAMES_COMMAND as CASE_NAMES_COMMAND
from holodeck_lsp.commands.shell_completion import MODELS_COMMAND as MODELS_COMMAND
from holodeck_lsp.commands.shell_completion import RUN_REFS_COMMAND as RUN_REFS_COMMAND

#: What an option's value (or a positional argument) is, for completing it.
FILE = "file"  # a path: the shell's file completion
CASE = "case"  # a case name of the agent files on the line
TEXT = "text"  # free text or a number: nothing to offer
RUN = "run"  # a stored run of the agent: tag, latest, previous, id
RUN_OR_FILE = "runfile"  # a stored run, or a report file
TAG = "tag"  # a tag the history holds
MODEL = "model"  # PROVIDER:NAME
#: The kinds the scripts ask `__run-refs` for.
RUN_KINDS = (RUN, RUN_OR_FILE, TAG)
KINDS = (FILE, CASE, TEXT, *RUN_KINDS, MODEL)

#: The key of a command's positional arguments in DYNAMIC_VALUES.
POSITIONAL = "(positional)"
#: (command, option or POSITIONAL) -> (kind, kind of an optional second value or None): the
#: values only the files on disk know, which argparse has no word for.
DYNAMIC_VALUES: dict[tuple[str, str], tuple[str, str | None]] = {
    ("run", "--case"): (CASE, None),
    ("run", "-k"): (CASE, None),
    ("run", "--model"): (MODEL, None),
    ("run", "--baseline"): (RUN_OR_FILE, None),
    ("run", "--resume"): (RUN, None),
    ("report", POSITIONAL): (RUN_OR_FILE, None),
    ("report", "--baseline"): (RUN_OR_FILE, None),
    ("compare", POSITIONAL): (RUN_OR_FILE, None),
    ("compare", "--baseline"): (RUN_OR_FILE, None),
    ("merge", POSITIONAL): (RUN_OR_FILE, None),
    ("runs", "--tag"): (TEXT, RUN),  # `runs --tag NAME [RUN]`
    ("runs", "--untag"): (TAG, None),
}


class Subcommand(Protocol):
    """A row of cli.py's command table, as completion reads it."""

    @property
    def name(self) -> str: ...

    @property
    def summary(self) -> str: ...

    #: "module:function": the function returning the command's argparse parser.
    @property
    def parser(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Option:
    names: tuple[str, ...]
    #: None for a flag; one of KINDS; or the choices.
    value: str | tuple[str, ...] | None = None
    help: str = ""
    #: The kind of an optional second value (`runs --tag NAME [RUN]`).
    then: str | None = None


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    help: str
    options: tuple[Option, ...]
    #: What positional arguments are: one of KINDS, or the choices.
    positional: str | tuple[str, ...] | None = FILE


#: Options before any subcommand (cli.py reads them itself, without argparse).
TOP_OPTIONS: tuple[Option, ...] = (
    Option(("-h", "--help"), help="show the options"),
    Option(("-V", "--version"), help="print the version"),
)

SHELLS = ("bash", "zsh", "fish")


def build_parser(subcommand: Subcommand) -> argparse.ArgumentParser:
    module, _, function = subcommand.parser.partition(":")
    build: Callable[[], argparse.ArgumentParser] = getattr(
        importlib.import_module(module), function
    )
    return build()


def commands(subcommands: Iterable[Subcommand]) -> tuple[Command, ...]:
    """Every subcommand, its parser walked."""
    return tuple(command_from(subcommand) for subcommand in subcommands)


def find_command(subcommands: Iterable[Subcommand], name: str) -> Command | None:
    """The one subcommand called `name` (only its parser built), or None."""
    found = next((subcommand for subcommand in subcommands if subcommand.name == name), None)
    return None if found is None else command_from(found)


def command_from(subcommand: Subcommand) -> Command:
    parser = build_parser(subcommand)
    name = subcommand.name
    options: dict[tuple[str, ...], Option] = {}
    positional: str | tuple[str, ...] | None = None
    for action in _actions(parser):
        if isinstance(action, argparse._SubParsersAction):
            # `import DATASET …`: the first word is a choice, the options are every choice's.
            positional = tuple(action.choices)
            for sub in action.choices.values():
                for option in _options(name, _actions(sub)):
                    known = {n for names in options for n in names}
                    new = tuple(n for n in option.names if n not in known)
                    if new:  # a name two datasets share is offered once
                        options[new] = Option(new, option.value, option.help, option.then)
        elif not action.option_strings and positional is None:
            positional = DYNAMIC_VALUES.get((name, POSITIONAL), (_value_of(action), None))[0]
    for option in _options(name, _actions(parser)):
        options.setdefault(option.names, option)
    ordered = sorted(options.values(), key=lambda option: option.names[0] not in ("-h", "--help"))
    return Command(name, short_help(subcommand.summary), tuple(ordered), positional)


def _actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return list(parser._actions)


def _options(command: str, actions: Iterable[argparse.Action]) -> Iterable[Option]:
    for action in actions:
        if not action.option_strings or action.help == argparse.SUPPRESS:
            continue
        names = tuple(action.option_strings)
        kind, then = next(
            (DYNAMIC_VALUES[(command, n)] for n in names if (command, n) in DYNAMIC_VALUES),
            (_value_of(action), None),
        )
        help_text = "show the options" if names[0] in ("-h", "--help") else _help(action)
        yield Option(names, None if action.nargs == 0 else kind, short_help(help_text), then)


def _help(action: argparse.Action) -> str:
    """The help as `--help` shows it (`%(default)s` filled in)."""
    text = action.help or ""
    try:
        return text % {**vars(action), "prog": ""}
    except (KeyError, TypeError, ValueError):
        return text


def _value_of(action: argparse.Action) -> str | tuple[str, ...] | None:
    if action.nargs == 0:
        return None
    if action.choices is not None and not isinstance(action.choices, dict):
        return tuple(str(choice) for choice in action.choices)
    return FILE if action.type is Path else TEXT


_CLAUSE_END = re.compile(r"; | \(| — |, e\.g\.")
_LONGEST = 64


def short_help(text: str) -> str:
    """The help text up to its first aside, at most a line, for the shells' descriptions."""
    text = _CLAUSE_END.split(" ".join(text.replace("%%", "%").split()), maxsplit=1)[0]
    if len(text) <= _LONGEST:
        return text
    return text[: text.rfind(" ", 0, _LONGEST)].rstrip(",:") + "…"


def with_hidden_commands(body: str) -> str:
    """A script's fixed text with the hidden commands' names put in for their placeholders
    (`__CASE_NAMES__`, `__RUN_REFS__`, `__MODELS__`), so each name is written in one place."""
    return (
        body.replace("__CASE_NAMES__", CASE_NAMES_COMMAND)
        .replace("__RUN_REFS__", RUN_REFS_COMMAND)
        .replace("__MODELS__", MODELS_COMMAND)
    )
