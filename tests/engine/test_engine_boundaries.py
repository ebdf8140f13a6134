"""engine/ is pure grading: importing all of it pulls in no backend SDK, no language server
and no NLP library (those load only when a metric needs them). This checks what importing the
engine loads at run time; test_engine_purity.py checks its source (no os, importlib, sys.path,
subprocess, no runner/config/server imports)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import holodeck_lsp.engine

FORBIDDEN = (
    "semantic_kernel", "claude_agent_sdk", "pygls", "lsprotocol", "openai", "anthropic",
    "deepeval", "httpx",
)  # fmt: skip
LAZY = ("sacrebleu", "rouge_score", "nltk", "regex_unused_marker")


def test_engine_imports_no_backend_or_server_module() -> None:
    modules = [
        info.name
        for info in pkgutil.walk_packages(holodeck_lsp.engine.__path__, "holodeck_lsp.engine.")
    ]
    assert "holodeck_lsp.engine.case_grading" in modules
    script = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN + LAZY!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"engine imported {out}"
