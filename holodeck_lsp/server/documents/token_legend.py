"""The semantic tokens' legend: standard LSP token types, so that every theme colours them.
Kept apart from `token_spans` (which needs the YAML nodes) so the server announces the legend
at start-up without importing the YAML reader."""

from __future__ import annotations

from enum import IntEnum

#: The index of a type here is its number on the wire.
TOKEN_TYPES = ("type", "function", "namespace", "variable", "enumMember")
TOKEN_MODIFIERS = ("declaration", "readonly")


class TokenType(IntEnum):
    #: type: `fuzzy` / `regex` under `args:`, the type of comparison. Not `keyword`: VS Code's
    #: default themes colour keywords as they colour YAML keys, so a matcher would not stand out.
    MATCHER = 0
    TOOL = 1  # function: tool names, a grader's callable
    MODULE = 2  # namespace: a grader's module
    STEP = 3  # variable (readonly): `#N` in a program
    METRIC = 4  # enumMember: a standard or RAG metric's name


DECLARATION = 1 << 0
READONLY = 1 << 1
