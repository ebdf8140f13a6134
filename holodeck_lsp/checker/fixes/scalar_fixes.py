"""Quick fixes for one diagnostic: quote a value, take the did-you-mean suggestion, escape
only what breaks a regex (`regex_escapes`) or match it literally, rename or create a missing
grader (`grader_stubs`), move single-turn fields into a first turn (`case_rewrites`).

A fix is only offered when the node it would change is found and simple enough to rewrite
safely. Nothing raises for broken input: no node, no fix.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from ruamel.yaml.nodes import ScalarNode

from holodeck_lsp.checker.fixes.case_rewrites import legacy_into_first_turn
from holodeck_lsp.checker.fixes.edits import Fix
from holodeck_lsp.checker.fixes.grader_stubs import grader_stub
from holodeck_lsp.checker.fixes.nodes import (
    BLOCK_STYLES,
    double_quoted,
    is_plain,
    replace,
    replacement_for,
    scalar_at,
)
from holodeck_lsp.checker.fixes.regex_escapes import escape_offending
from holodeck_lsp.checker.yaml_document import parse_yaml


def fixes_for(
    text: str,
    code: str,
    offset: int,
    data: Mapping[str, object],
    agent_dir: Path | None,
    message: str = "",
) -> list[Fix]:
    """Quick fixes for one diagnostic (`code` at code-point `offset` of `text`)."""
    if code == "HD111":
        moved = legacy_into_first_turn(text, offset)
        return [] if moved is None else [moved]
    root = parse_yaml(text).root
    if root is None:
        return []
    node = scalar_at(root, offset)
    if node is None or node.tag is None:
        return []
    suggestion = data.get("suggestion")
    if code == "HD102":
        return _quote(node, data, message)
    if code in ("HD100", "HD103", "HD201", "HD125") and isinstance(suggestion, str) and suggestion:
        return _did_you_mean(node, suggestion)
    if code == "HD120":
        return _regex_fixes(node)
    if code in ("HD131", "HD132") and agent_dir is not None:
        return grader_stub(node, code, agent_dir)
    return []


def _quote(node: ScalarNode, data: Mapping[str, object], message: str) -> list[Fix]:
    expected = data.get("expected")
    # Fields say so in `expected`; matcher patterns (`fuzzy: 12`) only in the message.
    wants_string = (isinstance(expected, str) and "string" in expected) or (
        "must be a string" in message
    )
    if not is_plain(node) or not wants_string:
        return []
    return [Fix("Quote the value", [replace(node, double_quoted(node.value))], preferred=True)]


def _did_you_mean(node: ScalarNode, suggestion: str) -> list[Fix]:
    if node.style in BLOCK_STYLES or node.value == suggestion:
        return []
    edit = replace(node, replacement_for(node, suggestion))
    return [Fix(f"Change to '{suggestion}'", [edit], preferred=True)]


def _regex_fixes(node: ScalarNode) -> list[Fix]:
    """Escape just the offending characters (preferred: the rest stays a regex), then
    "match literally" — one fix when both come to the same pattern."""
    if node.style in BLOCK_STYLES:
        return []
    literal = re.escape(node.value)
    fixes: list[Fix] = []
    targeted = escape_offending(node.value)
    if targeted is not None and targeted[0] != literal:
        pattern, escaped = targeted
        which = ", ".join(f"`{char}`" for char in dict.fromkeys(escaped))
        title = f"Escape {which} (keep the rest of the regex)"
        fixes.append(Fix(title, [replace(node, replacement_for(node, pattern))], preferred=True))
    edit = replace(node, double_quoted(literal))
    fixes.append(Fix("Match this text literally", [edit], preferred=not fixes))
    return fixes
