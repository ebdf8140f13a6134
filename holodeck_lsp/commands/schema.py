"""`holodeck-lsp schema [--output FILE]`: the JSON Schema of agent.yaml, from the models."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from holodeck_lsp.commands._common import write_output
from holodeck_lsp.exit_codes import EXIT_BAD_INPUT, EXIT_OK

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_TITLE = "HoloDeck agent.yaml"


def schema_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="holodeck-lsp schema", description="Print the JSON Schema of agent.yaml."
    )
    parser.add_argument("--output", type=Path, metavar="FILE", help="write it to FILE")
    return parser


def main(argv: Sequence[str]) -> int:
    parser = schema_parser()
    try:
        options = parser.parse_args(list(argv))
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_BAD_INPUT
    text = schema_json()
    if options.output is None:
        sys.stdout.write(text)
        return EXIT_OK
    return write_output(options.output, text, status_if_not=EXIT_BAD_INPUT)


def schema_json() -> str:
    from holodeck_lsp.schema.agent import Agent

    schema = Agent.model_json_schema()
    schema.pop("title", None)
    return json.dumps({"$schema": SCHEMA_DIALECT, "title": SCHEMA_TITLE, **schema}, indent=2) + "\n"
