"""`import otel FILE`: a conversation recorded as OpenTelemetry GenAI spans (OTLP JSON, as a
collector's file exporter writes it; a traced `holodeck-lsp run` among the producers) as a
test case and a cassette replaying it (docs/importing-otel.md), as an `Importer`
(commands/import_/protocol.py). The import itself is holodeck_lsp.importers.otel."""

from __future__ import annotations

import argparse
from pathlib import Path

from holodeck_lsp.commands.import_.protocol import ImportRefused, ImportResult, ImportWriteFailed


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
        clashing = sorted(name for name in files if (output / name).exists())
        if clashing and not args.force:
            raise ImportRefused(
                f"{output} already has {clashing[0]}: pass --force to replace the files of an "
                "earlier import, or choose another --output"
            )
        written: list[Path] = []
        for name, text in files.items():
            target = output / name
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
            except OSError as error:
                raise ImportWriteFailed(
                    f"cannot write {target}: {error.strerror or error}"
                ) from None
            written.append(target)
        return ImportResult(
            output=output,
            files_written=tuple(written),
            cases=suite.cases,
            summary=f"imported {suite.cases} conversation(s), {suite.turns} turn(s), into {output}",
        )
