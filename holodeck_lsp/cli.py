"""The `holodeck-lsp` command: which subcommand runs (see docs/cli.md).

    holodeck-lsp check PATH…      holodeck-lsp run PATH        holodeck-lsp schema
    holodeck-lsp serve [--stdio | --tcp --port N]             holodeck-lsp (no arguments: serve)

The flags of the first releases stay: `--check PATH…`, `--schema`, `--stdio`, `--tcp`,
`--version` — the editor extension and CI set-ups call them. Each subcommand parses its own
options and imports what it needs only then, so `--version` and `--help` answer at once.
"""

from __future__ import annotations

import difflib
import gc
import importlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from holodeck_lsp import __version__
from holodeck_lsp.commands._common import fail
from holodeck_lsp.commands.shell_completion import HIDDEN_COMMANDS
from holodeck_lsp.exit_codes import EXIT_BAD_INPUT, EXIT_OK, RUN_EXIT_CODES, epilog
from holodeck_lsp.terminal import printable_output


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    #: How `--help` shows it (name and arguments).
    usage: str
    summary: str
    #: The module whose `main(argv) -> int` runs it; imported only when it is chosen.
    module: str
    #: "module:function" returning its argparse parser: shell completion is written from it
    #: (commands/shell_completion/command_table.py), so a new flag is completed as it is.
    parser: str


#: The commands, written once: dispatch, `--help` and the unknown-command message read it.
COMMANDS = (
    Command(
        "check", "check PATH…",
        "check agent files: every load-time fault at its position (--fix, --diff)",
        "holodeck_lsp.commands.check", "holodeck_lsp.commands.check:parser",
    ),
    Command(
        "run", "run PATH…",
        "run agents' test cases against the agent (or a cassette) and grade them",
        "holodeck_lsp.commands.run.main", "holodeck_lsp.commands.run.options:run_parser",
    ),
    Command(
        "serve", "serve", "the language server, over stdio (the default) or --tcp --port N",
        "holodeck_lsp.commands.serve", "holodeck_lsp.commands.serve:serve_parser",
    ),
    Command(
        "schema", "schema", "print the JSON Schema of agent.yaml", "holodeck_lsp.commands.schema",
        "holodeck_lsp.commands.schema:schema_parser",
    ),
    Command(
        "report", "report RUN|FILE",
        "a stored run or JSON report as an HTML page (--html) or Markdown (--md)",
        "holodeck_lsp.commands.report", "holodeck_lsp.commands.report:report_parser",
    ),
    Command(
        "runs", "runs [PATH]",
        "the stored runs of an agent (--tag NAME, --untag NAME, --prune, --json)",
        "holodeck_lsp.commands.runs", "holodeck_lsp.commands.runs:_parser",
    ),
    Command(
        "compare", "compare [BASE] [HEAD]",
        "what changed between two runs, turn by turn (exit 1: regressions)",
        "holodeck_lsp.commands.compare", "holodeck_lsp.commands.compare:_parser",
    ),
    Command(
        "merge", "merge RUN…",
        "join the runs of a suite's shards (run --shard K/N) into one stored run",
        "holodeck_lsp.commands.merge", "holodeck_lsp.commands.merge:merge_parser",
    ),
    Command(
        "import", "import DATASET SOURCE",
        "a public benchmark's records as a test suite",
        "holodeck_lsp.commands.import_.main", "holodeck_lsp.commands.import_.main:import_parser",
    ),
    Command(
        "completion", "completion SHELL",
        "print the bash, zsh or fish completion script (docs/cli.md)",
        "holodeck_lsp.commands.completion", "holodeck_lsp.commands.completion:completion_parser",
    ),
)  # fmt: skip
_BY_NAME = {command.name: command for command in COMMANDS}
#: The old spellings, kept working exactly as before: flag -> subcommand.
LEGACY_FLAGS = {"--check": "check", "--schema": "schema", "--stdio": "serve", "--tcp": "serve"}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        _tell_a_person_at_a_terminal()
        return _serve([])
    first = args[0]
    command = _BY_NAME.get(first)
    if command is not None:
        # Imported here: each command pulls in only what it needs (run: pydantic, asyncio).
        entry: Callable[[list[str]], int] = _import_command(command.module)
        if command.name == "serve":  # the protocol's stream: nothing printed on it
            return entry(args[1:])
        if command.name == "completion":  # written from this table's parsers
            from holodeck_lsp.commands.completion import main as completion_main

            return completion_main(args[1:], COMMANDS)
        # No control character from a file or a stored run reaches the terminal (terminal.py).
        with printable_output():
            return entry(args[1:])
    if first in HIDDEN_COMMANDS:  # the completion scripts' sources of names (shell_completion/)
        from holodeck_lsp.commands.shell_completion.hidden import main as hidden_main

        return hidden_main(first, args[1:])
    if first in ("-h", "--help", "help"):
        sys.stdout.write(help_text())
        return EXIT_OK
    if first in ("-V", "--version"):
        print(__version__)
        return EXIT_OK
    if not first.startswith("-"):
        return _unknown_command(first)
    return _legacy(args)


def _import_command(module: str) -> Callable[[list[str]], int]:
    """The command's `main`, imported with the garbage collector off. An import creates
    hundreds of thousands of objects that live as long as the process (pydantic's models of
    schema/, the YAML library) and almost no garbage, yet triggers a hundred collections,
    one of them full: about a tenth of a short command's CPU (docs/benchmarks.md, "Start-up
    cost, issue 37 item 7"). Frozen afterwards, that heap is never walked again; what the
    command itself allocates is collected as usual. `serve` turns collection off for good
    before its imports (commands/serve.py), so it is left alone here."""
    if module == "holodeck_lsp.commands.serve" or module in sys.modules:
        # Already imported (a test calling `main` in-process again): nothing to spare, and
        # freezing that process's heap again would keep its garbage for good.
        return importlib.import_module(module).main  # type: ignore[no-any-return]
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return importlib.import_module(module).main  # type: ignore[no-any-return]
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


#: Said on stderr when `holodeck-lsp` alone is started from a terminal (an editor gives it
#: pipes): a person typed it, and would otherwise watch it wait in silence.
WAITING_ON_STDIO = (
    "holodeck-lsp: this is the language server, waiting for an editor to speak LSP on "
    "stdin/stdout; Ctrl-C stops it. `holodeck-lsp --help` lists the commands "
    "(check, run, report, …); docs/editors/README.md says how to connect an editor.\n"
)


def _tell_a_person_at_a_terminal() -> None:
    try:
        at_terminal = sys.stdin.isatty()
    except (AttributeError, ValueError):  # no stdin, or it is closed
        at_terminal = False
    if at_terminal:
        sys.stderr.write(WAITING_ON_STDIO)
        sys.stderr.flush()


def _unknown_command(name: str) -> int:
    names = [command.name for command in COMMANDS]
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.7)
    hint = f"; did you mean `{close[0]}`?" if close else ""
    return _usage(
        f"unknown command {name!r}{hint} (commands: {', '.join(names)}; see holodeck-lsp --help)"
    )


def help_text() -> str:
    rows = [(command.usage, _summary(command)) for command in COMMANDS]
    rows.append(("(none)", "the language server over stdio, as an editor starts it"))
    width = max(len(name) for name, _ in rows) + 2
    commands = "\n".join(f"  {name.ljust(width)}{summary}" for name, summary in rows)
    return (
        "usage: holodeck-lsp [COMMAND] [OPTIONS]\n\n"
        "Language server, checker and runner for HoloDeck agent.yaml test suites.\n\n"
        f"commands:\n{commands}\n\n"
        "`holodeck-lsp COMMAND --help` lists a command's options; `holodeck-lsp --version`\n"
        "prints the version. The flags --check PATH…, --schema, --stdio and --tcp --port N\n"
        "still work as the commands above.\n\n"
        f"{epilog(RUN_EXIT_CODES, 'exit status of run')}\n"
        "  compare exits 0 (no regression), 1 (some turn regressed) or 2 (bad arguments).\n"
        "  check exits 0 or 2 only. Any other status means holodeck-lsp crashed: please report"
        " it.\n"
    )


def _summary(command: Command) -> str:
    if command.name != "import":
        return command.summary
    # The datasets from the importers' registry, as `import --help` lists them.
    from holodeck_lsp.commands.import_.registry import importers

    names = ", ".join(importer.name for importer in importers())
    return f"{command.summary} ({names}; docs/importing.md)"


def _legacy(args: list[str]) -> int:
    if "--tcp" not in args and any(arg in ("--host", "--port") for arg in args):
        return _usage("--host and --port only apply to --tcp (holodeck-lsp serve --tcp --port N)")
    found = [arg for arg in args if arg in LEGACY_FLAGS or arg == "--version"]
    if "--version" in found and len(args) == 1:
        print(__version__)
        return EXIT_OK
    commands = {LEGACY_FLAGS[arg] for arg in found if arg in LEGACY_FLAGS}
    if len(commands) != 1 or "--version" in found:
        what = " and ".join(sorted(set(found))) if found else f"unknown command {args[0]!r}"
        return _usage(
            f"{what}: choose one command ({', '.join(c.name for c in COMMANDS)}; "
            "see holodeck-lsp --help)"
        )
    command = commands.pop()
    if command == "check":
        rest = [arg for arg in args if arg != "--check"]
        # The old flag took the paths (`--check a.yaml b.yaml`): they are the command's now,
        # wherever the options are written.
        from holodeck_lsp.commands.check import main as check_main

        with printable_output():
            return check_main(rest, "holodeck-lsp --check")
    if command == "schema":
        return _schema([arg for arg in args if arg != "--schema"])
    return _serve([arg for arg in args if arg != "--stdio"])


def _schema(args: list[str]) -> int:
    from holodeck_lsp.commands.schema import main as schema_main

    return schema_main(args)


def _serve(args: list[str]) -> int:
    from holodeck_lsp.commands.serve import main as serve_main

    return serve_main(args)


def _usage(message: str) -> int:
    print("usage: holodeck-lsp [COMMAND] [OPTIONS]", file=sys.stderr)
    return fail(EXIT_BAD_INPUT, message)
