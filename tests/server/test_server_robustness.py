"""Robustness: seeded random full-text edits (truncations, latin-1 garbage, a 100,000-character
line, 2,000-deep `[[[…]]]`, CRLF, BOM, tabs, alias bombs, back to the original …) sent through
didChange to the real server over stdio. After each edit hover and documentSymbol must answer
within 10 s (a hang, not a latency figure: the suite runs on parallel workers sharing two cores;
latency is measured in bench/lsp_latency.py), the version's diagnostics must arrive, and every
published diagnostic range must lie inside the text of the version it was computed for. Set
HOLODECK_FUZZ_SEED to reproduce another sequence; the seed is in every failure message."""

from __future__ import annotations

import asyncio
import os
import random
import re
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import change_file, initialize, open_file, published, wait_for

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "matchers-and-lints"
SEED = int(os.environ.get("HOLODECK_FUZZ_SEED", "20261129"))
EDITS = 120
ANSWER_WITHIN = 10.0
DIAGNOSTICS_WITHIN = 15.0

Edit = Callable[[random.Random, str, str], str]


def truncate(rng: random.Random, text: str, original: str) -> str:
    return text[: rng.randrange(len(text) + 1)]


def delete_span(rng: random.Random, text: str, original: str) -> str:
    start = rng.randrange(len(text) + 1)
    return text[:start] + text[start + rng.randrange(1, 200) :]


def latin1_garbage(rng: random.Random, text: str, original: str) -> str:
    garbage = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))).decode("latin-1")
    at = rng.randrange(len(text) + 1)
    return text[:at] + garbage + text[at:]


def long_line(rng: random.Random, text: str, original: str) -> str:
    lines = text.split("\n")
    at = rng.randrange(len(lines) + 1)
    filler = rng.choice(["x" * 100_000, "  input: " + "é" * 99_991, "[" + "1," * 49_999 + "1]"])
    return "\n".join([*lines[:at], filler, *lines[at:]])


def deep_nesting(rng: random.Random, text: str, original: str) -> str:
    return text + "\nnested: " + "[" * 2000 + "]" * 2000 + "\n"


def crlf(rng: random.Random, text: str, original: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def lone_cr(rng: random.Random, text: str, original: str) -> str:
    return text.replace("\n", "\r")


def bom(rng: random.Random, text: str, original: str) -> str:
    return "\ufeff" + text


def tabs(rng: random.Random, text: str, original: str) -> str:
    return re.sub(r"(?m)^  ", "\t", text)


def alias_bomb(rng: random.Random, text: str, original: str) -> str:
    rows = ['lol0: &lol0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        refs = ", ".join([f"*lol{i - 1}"] * 9)
        rows.append(f"lol{i}: &lol{i} [{refs}]")
    return "\n".join(rows) + "\n" + text


def unicode_text(rng: random.Random, text: str, original: str) -> str:
    chunk = "".join(rng.choice("aé\u202f😀\u0000\u2028\t: -#&*!|>'\"{}[],") for _ in range(40))
    at = rng.randrange(len(text) + 1)
    return text[:at] + chunk + text[at:]


def duplicate_lines(rng: random.Random, text: str, original: str) -> str:
    lines = text.split("\n")
    start = rng.randrange(len(lines))
    block = lines[start : start + rng.randrange(1, 20)]
    return "\n".join([*lines[:start], *block, *block, *lines[start + len(block) :]])


def restore(rng: random.Random, text: str, original: str) -> str:
    return original


EDIT_KINDS: list[Edit] = [
    truncate,
    delete_span,
    latin1_garbage,
    long_line,
    deep_nesting,
    crlf,
    lone_cr,
    bom,
    tabs,
    alias_bomb,
    unicode_text,
    duplicate_lines,
    restore,
]


def lines_of(text: str) -> list[str]:
    """Lines as LSP counts them: \\r\\n, \\r and \\n all end a line."""
    return re.split(r"\r\n|\r|\n", text)


def inside(text: str, position: types.Position) -> bool:
    lines = lines_of(text)
    return 0 <= position.line < len(lines) and 0 <= position.character <= len(lines[position.line])


def of_version(version: int) -> Callable[[types.PublishDiagnosticsParams], bool]:
    return lambda params: params.version == version


async def answered(request: Awaitable[object], what: str, context: str) -> None:
    try:
        await asyncio.wait_for(request, ANSWER_WITHIN)
    except TimeoutError:
        raise AssertionError(
            f"{what} did not answer within {ANSWER_WITHIN} s ({context})"
        ) from None


@pytest.mark.slow
async def test_random_edits_keep_the_server_answering(
    client: LanguageClient, tmp_path: Path
) -> None:
    folder = tmp_path / "suite"
    shutil.copytree(CORPUS, folder)
    path = folder / "agent.yaml"
    original = path.read_text(encoding="utf-8")
    # utf-32: ranges count code points, as `inside` does.
    await initialize(client, root=folder, encodings=["utf-32"])
    document = open_file(client, path, original)
    texts = {1: original}
    await wait_for(client, document, lambda p: p.version == 1)

    rng = random.Random(SEED)
    text = original
    history: list[str] = []
    for version in range(2, EDITS + 2):
        kind = rng.choice(EDIT_KINDS)
        text = kind(rng, text, original)
        if len(text) > 400_000:  # keep the run short: start again from the original
            text = original
        history.append(kind.__name__)
        texts[version] = text
        context = f"seed {SEED}, edit {version - 1} ({' -> '.join(history[-4:])})"
        change_file(client, document, text, version)

        lines = lines_of(text)
        line = rng.randrange(len(lines))
        where = types.Position(line=line, character=rng.randrange(len(lines[line]) + 1))
        ident = types.TextDocumentIdentifier(uri=document)
        await answered(
            client.text_document_hover_async(
                types.HoverParams(text_document=ident, position=where)
            ),
            "hover",
            context,
        )
        await answered(
            client.text_document_document_symbol_async(
                types.DocumentSymbolParams(text_document=ident)
            ),
            "documentSymbol",
            context,
        )
        await wait_for(client, document, of_version(version), timeout=DIAGNOSTICS_WITHIN)

    for params in published(client):
        if params.uri != document:
            continue
        assert params.version in texts, f"seed {SEED}: publish for unknown version {params.version}"
        for diagnostic in params.diagnostics:
            for end in (diagnostic.range.start, diagnostic.range.end):
                assert inside(texts[params.version], end), (
                    f"seed {SEED}: version {params.version} ({history[params.version - 2]}): "
                    f"{diagnostic.code} range {diagnostic.range} outside the text"
                    if params.version > 1
                    else f"seed {SEED}: {diagnostic.code} range {diagnostic.range} outside the text"
                )
