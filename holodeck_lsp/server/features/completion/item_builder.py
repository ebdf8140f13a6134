"""Building completion items: each replaces the text typed so far (a TextEdit over it), in
the order they were added, snippet lines carrying their own indentation."""

from __future__ import annotations

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer

Kind = types.CompletionItemKind


def edit_range(server: HolodeckServer, text: str, line: int, start: int, end: int) -> types.Range:
    converter = server.converter(text)
    a = converter.to_client(line, start)
    b = converter.to_client(line, end)
    return types.Range(types.Position(*a), types.Position(*b))


class ItemBuilder:
    def __init__(self, replace: types.Range, indent: str) -> None:
        self.items: list[types.CompletionItem] = []
        self.replace = replace
        self.indent = indent

    def add(
        self,
        label: str,
        new_text: str,
        kind: types.CompletionItemKind,
        *,
        snippet: bool = False,
        documentation: str | types.MarkupContent | None = None,
        detail: str | None = None,
    ) -> None:
        self.items.append(
            types.CompletionItem(
                label=label,
                kind=kind,
                detail=detail,
                documentation=documentation,
                text_edit=types.TextEdit(self.replace, new_text),
                insert_text_format=types.InsertTextFormat.Snippet
                if snippet
                else types.InsertTextFormat.PlainText,
                # Snippet lines carry their own (absolute) indentation.
                insert_text_mode=types.InsertTextMode.AsIs,
                sort_text=f"{len(self.items):04d}",
            )
        )


def escape_snippet(text: str) -> str:
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("}", "\\}")
