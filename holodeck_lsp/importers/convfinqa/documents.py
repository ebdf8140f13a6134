"""A dialogue's page as the agent reads it with the first question: the document id, the
text before the table, the table in Markdown, the text after."""

from __future__ import annotations

from collections.abc import Mapping

from holodeck_lsp.importers.convfinqa.cases import number_text
from holodeck_lsp.importers.convfinqa.language import table_rows
from holodeck_lsp.importers.convfinqa.records import Record


def _cell_text(value: object) -> str:
    if isinstance(value, float):
        return number_text(value)
    return "" if value is None else str(value)


def render_document(record: Record) -> str:
    doc = record["doc"]
    table: Mapping[str, Mapping[str, object]] = doc["table"]
    columns = list(table)
    lines = [
        f"Document id: {record['id']}",
        "One page of a company's annual report (ConvFinQA). Read table values with "
        "lookup(document_id, row, column), using the names exactly as the table prints them.",
        "",
        "## Text before the table",
        "",
        doc["pre_text"].strip(),
        "",
        "## Table",
        "",
        "| row | " + " | ".join(columns) + " |",
        "|" + "---|" * (len(columns) + 1),
    ]
    for row in table_rows(table):
        cells = [_cell_text(table[column].get(row)) for column in columns]
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    lines += ["", "## Text after the table", "", doc["post_text"].strip(), ""]
    return "\n".join(lines)
