"""The `holodeck-lsp` command: which subcommand runs (see docs/cli.md).

    holodeck-lsp check PATH…      holodeck-lsp run PATH        holodeck-lsp schema
    holodeck-lsp serve [--stdio | --tcp --port N]             holodeck-lsp (no arguments: serve)

The flags of the first releases stay: `--check PATH…`, `--schema`, `--stdio`, `--tcp`,
`--version` — the editor extension and CI set-ups call them. Each subcommand parses its own
options and imports what it needs only then, so `--version` and `--help` answer at once.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from holodeck_lsp import __version__
from holodeck_lsp.commands._common import fail
from holodeck_lsp.commands.shell_completion import HIDDEN_COMMANDS
from holodeck_lsp.exit_codes import EXIT_BAD_INPUT, EXIT_OK, RUN_EXIT_CODES, epilog

COMMANDS = (
    ("check PATH…", "check agent files: every load-time fault at its position (--fix, --diff)"),
    ("run PATH…", "run agents' test cases against the agent (or a cassette) and grade them"),
    ("serve", "the language server, over stdio (the default) or --tcp --port N"),
    ("schema", "print the JSON Schema of agent.yaml"),
    ("report RUN|FILE", "a stored run or JSON report as an HTML page (--html) or Markdown (--md)"),
    ("runs [PATH]", "the stored runs of an agent (--tag NAME, --untag NAME, --prune, --json)"),
    ("compare [BASE] [HEAD]", "what changed between two runs, turn by turn (exit 1: regressions)"),
    ("completion SHELL", "print the bash, zsh or fish completion script (docs/cli.md)"),
)
#: The old spellings, kept working exactly as before: flag -> subcommand.
LEGACY_FLAGS = {"--check": "check", "--schema": "schema", "--stdio": "serve", "--tcp": "serve"}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        return _serve([])
    first = args[0]
    if first == "run":
        # Imported here: the runner pulls in pydantic, the engine and asyncio machinery.
        from holodeck_lsp.commands.run.main import main as run_main

        return run_main(args[1:])
    if first == "report":
        from holodeck_lsp.commands.report import main as report_main

        return report_main(args[1:])
    if first == "runs":
        from holodeck_lsp.commands.runs import main as runs_main

        return runs_main(args[1:])
    if first == "compare":
        from holodeck_lsp.commands.compare import main as compare_main

        return compare_main(args[1:])
    if first == "completion":
        from holodeck_lsp.commands.completion import main as completion_main

        return completion_main(args[1:])
    if first in HIDDEN_COMMANDS:  # the completion scripts' sources of names (shell_completion/)
        from holodeck_lsp.commands.shell_completion.hidden import main as hidden_main

        return hidden_main(first, args[1:])
    if first == "check":
        return _check(args[1:], "holodeck-lsp check")
    if first == "serve":
        return _serve(args[1:])
    if first == "schema":
        return _schema(args[1:])
    if first in ("-h", "--help", "help"):
        sys.stdout.write(help_text())
        return EXIT_OK
    if first in ("-V", "--version"):
        print(__version__)
        return EXIT_OK
    return _legacy(args)


def help_text() -> str:
    rows = [*COMMANDS, ("(none)", "the language server over stdio, as an editor starts it")]
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
            f"{what}: choose one command (check, run, serve, schema; see holodeck-lsp --help)"
        )
    command = commands.pop()
    if command == "check":
        rest = [arg for arg in args if arg != "--check"]
        # The old flag took the paths (`--check a.yaml b.yaml`): they are the command's now,
        # wherever the options are written.
        return _check(rest, "holodeck-lsp --check")
    if command == "schema":
        return _schema([arg for arg in args if arg != "--schema"])
    return _serve([arg for arg in args if arg != "--stdio"])


def _check(args: list[str], prog: str) -> int:
    from holodeck_lsp.commands.check import main as check_main

    return check_main(args, prog)


def _schema(args: list[str]) -> int:
    from holodeck_lsp.commands.schema import main as schema_main

    return schema_main(args)


def _serve(args: list[str]) -> int:
    from holodeck_lsp.commands.serve import main as serve_main

    return serve_main(args)


def _usage(message: str) -> int:
    print("usage: holodeck-lsp [COMMAND] [OPTIONS]", file=sys.stderr)
    return fail(EXIT_BAD_INPUT, message)
