"""YAML read as HoloDeck reads it (issue 35, item 5): generated agent files that differ from a
valid one by one YAML form where libyaml and PyYAML disagree (tests/hostile/yaml_parity_probes.py)
get holodeck-ai 0.7.1's verdict from `check` (the console script) and from the language server
(over stdio), and where PyYAML's `safe_load` raises, an error at the place it names."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.hostile.yaml_parity_probes import PROBES, UPSTREAM_LOADS, write_probes
from tests.server.lsp_client import (
    SERVER_ENV,
    initialize,
    installed_server,
    open_file,
    published,
)
from tests.server.shared_server import own_client

#: (code, start line, start character, end line, end character, severity, message)
Diagnostic = tuple[Any, ...]
_SEVERITY = {"error": 1, "warning": 2, "information": 3, "hint": 4}


def pyyaml_mark(text: str) -> tuple[int, int] | None:
    """Where PyYAML's `safe_load` raises on `text` (0-based line, column), or None if it loads."""
    try:
        yaml.safe_load(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        assert mark is not None
        return mark.line, mark.column
    return None


def check_all(folder: Path) -> dict[str, list[Diagnostic]]:
    """`holodeck-lsp check --format json` on every probe at once: probe name -> diagnostics."""
    completed = subprocess.run(
        [installed_server(), "check", "--format", "json", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
        env=SERVER_ENV,
    )
    assert completed.returncode in (0, 2), completed.stderr  # 2: errors found
    report = json.loads(completed.stdout)
    return {
        Path(entry["path"]).parent.name: sorted(
            (
                d["code"],
                d["range"]["start"]["line"],
                d["range"]["start"]["character"],
                d["range"]["end"]["line"],
                d["range"]["end"]["character"],
                _SEVERITY[d["severity"]],
                d["message"],
            )
            for d in entry["diagnostics"]
        )
        for entry in report["files"]
    }


def verdict_faults(name: str, diagnostics: list[Diagnostic]) -> list[str]:
    """What is wrong with our diagnostics of probe `name`, compared with upstream and PyYAML."""
    errors = [d for d in diagnostics if d[5] == 1]
    faults: list[str] = []
    if UPSTREAM_LOADS[name] and errors:
        faults.append(f"{name}: HoloDeck loads it, we report {errors}")
    if not UPSTREAM_LOADS[name] and not errors:
        faults.append(f"{name}: HoloDeck refuses it, we report no error")
    mark = pyyaml_mark(PROBES[name])
    if mark is not None and not any(d[0] == "HD001" and (d[1], d[2]) == mark for d in errors):
        faults.append(f"{name}: PyYAML raises at {mark}, we report {errors}")
    return faults


@pytest.fixture(scope="module")
def probes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    folder = tmp_path_factory.mktemp("yaml-parity")
    return folder, write_probes(folder)


@pytest.fixture(scope="module")
def checked(probes: tuple[Path, dict[str, Path]]) -> dict[str, list[Diagnostic]]:
    return check_all(probes[0])


def test_probes_cover_both_directions() -> None:
    loads = [name for name in PROBES if UPSTREAM_LOADS[name]]
    assert len(loads) >= 15 and len(PROBES) - len(loads) >= 20
    # PyYAML decides every probe that is about YAML alone (a few fail HoloDeck's schema only).
    assert all(pyyaml_mark(PROBES[name]) is None for name in loads)


@pytest.mark.slow  # the console script as a subprocess: about 2 s
def test_check_gives_upstream_verdicts(checked: dict[str, list[Diagnostic]]) -> None:
    assert sorted(checked) == sorted(PROBES)
    faults = [fault for name in PROBES for fault in verdict_faults(name, checked[name])]
    assert not faults, "\n".join(faults)


client = own_client()


@pytest.mark.slow  # a language server and 79 documents: about 3 s
async def test_server_publishes_what_check_reports(
    client: LanguageClient,
    probes: tuple[Path, dict[str, Path]],
    checked: dict[str, list[Diagnostic]],
) -> None:
    folder, paths = probes
    await initialize(client, root=folder, encodings=["utf-32"])
    uris = {open_file(client, path): name for name, path in paths.items()}

    def server_view() -> dict[str, list[Diagnostic]]:
        latest = {p.uri: p.diagnostics for p in published(client) if p.uri in uris}
        return {uris[uri]: _summary(items) for uri, items in latest.items()}

    deadline = asyncio.get_running_loop().time() + 60
    while server_view() != checked and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)
    assert server_view() == checked


def _summary(items: list[types.Diagnostic]) -> list[Diagnostic]:
    return sorted(
        (
            d.code,
            d.range.start.line,
            d.range.start.character,
            d.range.end.line,
            d.range.end.character,
            int(d.severity or 1),
            d.message,
        )
        for d in items
    )
