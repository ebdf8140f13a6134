"""What the completion scripts know about the command line: subcommands, their options and
what each option's value is. Written out by hand, not read from the argparse parsers, so that
`holodeck-lsp completion bash` in a shell's start-up file imports nothing heavy;
tests/cli/test_shell_completion.py fails when this table and the parsers disagree.

The kinds of value (what a Tab offers there):

    FILE         the shell's file completion
    CASE         the case names of the agent files on the line (`__case-names`)
    TEXT         free text or a number: nothing
    RUN          a stored run: its tags, `latest`, `previous`, the ids (`__run-refs`)
    RUN_OR_FILE  a stored run as RUN, or a report file (`compare BASE`, `--baseline`)
    TAG          an existing tag only (`runs --untag`)
    MODEL        PROVIDER:NAME — the providers, and the project's `models:` (`__models`)
    a tuple      those choices

Whose run history RUN means is decided by `__run-refs` from the whole line (run_refs.py), as
the command itself would decide it.
"""

from __future__ import annotations

from dataclasses import dataclass

from holodeck_lsp.commands.report_formats import REPORT_FORMATS

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


_HELP = Option(("-h", "--help"), help="show the options")
_COLOR = ("auto", "always", "never")

COMMANDS: tuple[Command, ...] = (
    Command(
        "check",
        "check agent files",
        (
            _HELP,
            Option(("--format",), ("text", "json", "sarif", "github"), "output format"),
            Option(("--trust",), help="import grader modules to verify them (runs code)"),
            Option(("--strict",), help="warnings fail the check too"),
            Option(("--output",), FILE, "write the output to FILE"),
            Option(("--fix",), help="apply the safe quick fixes"),
            Option(("--diff",), help="show the safe quick fixes as a diff"),
            Option(("--watch",), help="check again on save"),
            Option(("--color",), _COLOR, "colour the text output"),
        ),
    ),
    Command(
        "run",
        "run test cases and grade them",
        (
            _HELP,
            Option(("--case",), CASE, "run this case (name, position or glob)"),
            Option(("-k",), CASE, "cases whose name matches EXPR"),
            Option(("--turn",), TEXT, "grade only turn N of one --case"),
            Option(("-x", "--fail-fast"), help="stop at the first failing case"),
            Option(("--last-failed",), help="run the cases that failed last time"),
            Option(("--watch",), help="run again on save"),
            Option(("--color",), _COLOR, "colour the output"),
            Option(("--parallel",), TEXT, "cases run at once"),
            Option(("--model",), MODEL, "run with this model too (PROVIDER:NAME)"),
            Option(("--repeat",), TEXT, "sessions per case"),
            Option(("-v", "--verbose"), help="a row per turn in the model table"),
            Option(("--no-save",), help="do not store the run in the history"),
            Option(("--keep",), TEXT, "runs kept in the history"),
            Option(("--baseline",), RUN_OR_FILE, "compare with this stored run or report"),
            Option(("--progress",), ("auto", "cases", "totals"), "the progress display"),
            Option(("--record",), FILE, "record a cassette"),
            Option(("--replay",), FILE, "answer from a cassette"),
            Option(("--rejudge",), help="with --replay: call the judges again"),
            *(Option((form.run_flag,), FILE, form.help) for form in REPORT_FORMATS),
            Option(("--quiet",), help="print only the summary"),
            Option(("--grader-timeout",), TEXT, "seconds a code grader may run"),
            Option(("--retry-budget",), TEXT, "retries per turn on a provider's refusals"),
            Option(("--max-tool-rounds",), TEXT, "tool rounds one turn may take (default 20)"),
            Option(("--max-cost",), TEXT, "USD: start no case that would pass it"),
            Option(("--max-turns",), TEXT, "start no case that would pass N turns"),
            Option(("--resume",), RUN, "finish a run that stopped early"),
            Option(("--retry-errored",), help="with --resume: run errored cases again"),
            Option(("--force",), help="with --resume: even if the agent changed"),
        ),
    ),
    Command(
        "serve",
        "the language server",
        (
            _HELP,
            Option(("--stdio",), help="over stdio (the default)"),
            Option(("--tcp",), help="over TCP (needs --port)"),
            Option(("--host",), TEXT, "TCP address"),
            Option(("--port",), TEXT, "TCP port"),
        ),
        positional=None,
    ),
    Command(
        "schema",
        "print the JSON Schema of agent.yaml",
        (_HELP, Option(("--output",), FILE, "write it to FILE")),
        positional=None,
    ),
    Command(
        "report",
        "a stored run or JSON report as HTML or Markdown",
        (
            _HELP,
            Option(("--agent",), FILE, "where the stored run is"),
            *(
                Option((form.report_flag,), FILE, form.help)
                for form in REPORT_FORMATS
                if form.report_flag is not None
            ),
            Option(("--baseline",), RUN_OR_FILE, "mark changes against this run or report"),
        ),
        positional=RUN_OR_FILE,
    ),
    Command(
        "runs",
        "the stored runs of an agent",
        (
            _HELP,
            Option(("--json",), help="print the listing as JSON"),
            Option(("--tag",), TEXT, "name a run", then=RUN),
            Option(("--untag",), TAG, "remove a name"),
            Option(("--prune",), help="delete all but the newest runs"),
            Option(("--keep",), TEXT, "runs to keep"),
        ),
    ),
    Command(
        "compare",
        "what changed between two runs",
        (
            _HELP,
            Option(("--baseline",), RUN_OR_FILE, "the stored run tagged NAME, or a report"),
            Option(("--agent",), FILE, "whose stored runs"),
            Option(("--format",), ("text", "markdown", "json"), "output format"),
            Option(("--threshold",), TEXT, "score change to list"),
            Option(("--output",), FILE, "write it to FILE"),
            Option(("--allow-regressions",), help="exit 0 even when turns regressed"),
            Option(("--color",), _COLOR, "colour the text output"),
        ),
        positional=RUN_OR_FILE,
    ),
    # `import DATASET FILE`: the first word is a dataset (offered as choices); the options
    # are those of every dataset together (commands/import_/).
    Command(
        "import",
        "a public benchmark as a test suite",
        (
            _HELP,
            Option(("--out", "-o", "--output"), FILE, "the suite's folder"),
            Option(("--split",), TEXT, "which split of the file (convfinqa)"),
            Option(("--n",), TEXT, "how many dialogues (convfinqa: or all) or records"),
            Option(("--ids",), TEXT, "exactly these records"),
            Option(("--categories",), TEXT, "BFCL categories, comma-separated, or all (bfcl)"),
            Option(("--classes",), TEXT, "only records of these BFCL classes (bfcl)"),
            Option(("--name",), TEXT, "the agents' name (bfcl)"),
            Option(("--force",), help="replace an agent.yaml not written by the importer"),
        ),
        positional=("convfinqa", "bfcl"),
    ),
    Command(
        "completion",
        "print a shell completion script",
        (_HELP,),
        positional=("bash", "zsh", "fish"),
    ),
)

#: Options before any subcommand.
TOP_OPTIONS: tuple[Option, ...] = (
    _HELP,
    Option(("-V", "--version"), help="print the version"),
)

SHELLS = ("bash", "zsh", "fish")


def with_hidden_commands(body: str) -> str:
    """A script's fixed text with the hidden commands' names put in for their placeholders
    (`__CASE_NAMES__`, `__RUN_REFS__`, `__MODELS__`), so each name is written in one place."""
    return (
        body.replace("__CASE_NAMES__", CASE_NAMES_COMMAND)
        .replace("__RUN_REFS__", RUN_REFS_COMMAND)
        .replace("__MODELS__", MODELS_COMMAND)
    )
