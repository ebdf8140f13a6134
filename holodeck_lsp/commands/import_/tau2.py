"""`import tau2 PATH`: a τ²-bench checkout's domains as simulated-user suites
(docs/importing-tau2.md), as an `Importer` (commands/import_/protocol.py). A thin wrapper: the
import itself is holodeck_lsp.importers.tau2 (`import_tau2`); this reads the flags and writes
its files."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from holodeck_lsp.argument_types import positive_int
from holodeck_lsp.commands.import_.protocol import ImportRefused, ImportResult
from holodeck_lsp.commands.import_.suite_writing import write_suite_files

if TYPE_CHECKING:
    from holodeck_lsp.importers.tau2.suite import Model

_DOMAINS = ("retail", "airline", "telecom", "mock")


class Tau2Importer:
    name = "tau2"
    description = "τ²-bench (a checkout: retail, airline, telecom, mock) as simulated-user suites"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "path",
            type=Path,
            metavar="PATH",
            help="a τ²-bench checkout (git clone https://github.com/sierra-research/tau2-bench)",
        )
        parser.add_argument(
            "-o",
            "--out",
            "--output",
            dest="output",
            type=Path,
            default=Path("tau2"),
            metavar="DIR",
            help="the suite's folder (default: ./tau2)",
        )
        parser.add_argument(
            "--domains",
            default="all",
            metavar="LIST",
            help=f"comma-separated, of {', '.join(_DOMAINS)}, or all (default: all the checkout "
            "has whole)",
        )
        parser.add_argument(
            "--n", type=positive_int, default=None, metavar="N", help="the first N of each domain"
        )
        parser.add_argument(
            "--ids", default=None, metavar="LIST", help="only these task ids, comma-separated"
        )
        parser.add_argument(
            "--model",
            default="openai:gpt-4.1-mini",
            metavar="PROVIDER:NAME",
            help="the agent's model (default openai:gpt-4.1-mini)",
        )
        parser.add_argument(
            "--user-model",
            default="openai:gpt-4.1-mini",
            metavar="PROVIDER:NAME",
            help="the simulated user's model, pinned (default openai:gpt-4.1-mini)",
        )
        parser.add_argument(
            "--max-turns",
            type=positive_int,
            default=30,
            metavar="N",
            help="user messages the simulator may write per case (default 30)",
        )
        parser.add_argument("--name", default="tau2", help="the agents' name (default: tau2)")
        parser.add_argument(
            "--force", action="store_true", help="replace the files of an earlier import in DIR"
        )

    def run(self, args: argparse.Namespace) -> ImportResult:
        # Imported here: `holodeck-lsp --help` must not pay for the importer.
        from holodeck_lsp.importers.tau2.errors import ImportInputError
        from holodeck_lsp.importers.tau2.importer import Selection, import_tau2, summary

        domains = _DOMAINS if args.domains == "all" else _split(args.domains)
        ids = frozenset(_split(args.ids)) if args.ids else None
        selection = Selection(
            domains=domains,
            n=args.n,
            ids=ids,
            name=args.name,
            agent_model=_model(args.model, "--model"),
            user_model=_model(args.user_model, "--user-model"),
            max_turns=args.max_turns,
        )
        try:
            suite = import_tau2(args.path, selection)
        except ImportInputError as error:
            raise ImportRefused(str(error)) from None
        output: Path = args.output
        written = write_suite_files(output, suite.files, force=args.force)
        return ImportResult(
            output=output,
            files_written=written,
            cases=sum(map(len, suite.cases.values())),
            warnings=suite.warnings,
            summary=f"imported {summary(suite)} into {output}",
            details=tuple(f"passed over: {line}" for line in suite.passed_over),
        )


def _model(text: str, flag: str) -> Model:
    from holodeck_lsp.importers.tau2.suite import Model

    provider, _, name = text.partition(":")
    if not provider or not name:
        raise ImportRefused(f"{flag} {text!r}: write PROVIDER:NAME, e.g. openai:gpt-4.1-mini")
    return Model(provider, name)


def _split(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())
