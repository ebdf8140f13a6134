"""`import otel FILE`: a conversation recorded as OpenTelemetry GenAI spans (OTLP JSON, as a
collector's file exporter writes it; a traced `holodeck-lsp run` among the producers) as a
test case and a cassette replaying it (docs/importing-otel.md), as an `Importer`
(commands/import_/protocol.py). The import itself is holodeck_lsp.importers.otel."""

from __future__ import annotations

import argparse
from pathlib import Path

from holodeck_lsp.commands.import_.protocol import ImportRefused, ImportResult
from holodeck_lsp.commands.import_.suite_writing import write_suite_files


class OtelImporter:
    name = "otel"
    description = (
        "conversations recorded as OpenTelemetry GenAI spans (OTLP JSON) as test cases and a "
        "cassette"
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "path",
            type=Path,
            metavar="FILE",
            help="OTLP JSON: a collector's file exporter output (one document a line) or one "
            "document; the spans need message content (docs/importing-otel.md)",
        )
        parser.add_argument(
            "-o",
            "--out",
            "--output",
            dest="output",
            type=Path,
            default=Path("otel-import"),
            metavar="DIR",
            help="the suite's folder (default: ./otel-import)",
        )
        parser.add_argument(
            "--conversation",
            metavar="ID",
            help="only this conversation: its gen_ai.conversation.id or its trace id",
        )
        parser.add_argument(
            "--name", default="imported-agent", help="the agent's name (default: imported-agent)"
        )
        parser.add_argument(
            "--force", action="store_true", help="replace the files of an earlier import in DIR"
        )

    def run(self, args: argparse.Namespace) -> ImportResult:
        from holodeck_lsp.importers.otel.importer import import_otel
        from holodeck_lsp.importers.otel.spans import OtelImportError

        try:
            suite = import_otel(args.path, args.name, args.conversation)
        except OtelImportError as error:
            raise ImportRefused(str(error)) from None
        from holodeck_lsp.commands.import_.otel_cassette import suite_cassette
        from holodeck_lsp.importers.otel.suite import CASSETTE

        files = {
            "agent.yaml": suite.agent,
            CASSETTE: suite_cassette(suite, args.name).render(),
        }
        output: Path = args.output
        written = write_suite_files(output, files, force=args.force)
        return ImportResult(
            output=output,
            files_written=written,
            cases=suite.cases,
            summary=f"imported {suite.cases} conversation(s), {suite.turns} turn(s), into {output}",
        )
