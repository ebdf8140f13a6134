"""tests/bytecode_cache.py: the session's processes share one bytecode tree outside the
checkout, whatever PYTHONDONTWRITEBYTECODE says."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import holodeck_lsp.schema.base as probe_module


def test_a_child_process_compiles_into_the_sessions_tree() -> None:
    prefix = os.environ["PYTHONPYCACHEPREFIX"]
    assert "PYTHONDONTWRITEBYTECODE" not in os.environ
    assert sys.pycache_prefix == prefix and not sys.dont_write_bytecode
    source = Path(probe_module.__file__).resolve()
    child = subprocess.run(
        [sys.executable, "-c", "import sys, holodeck_lsp.schema.base; print(sys.pycache_prefix)"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert child.stdout.strip() == prefix
    # CPython mirrors the source's absolute folder under the prefix (docs of sys.pycache_prefix).
    compiled = Path(prefix, *source.parent.parts[1:]).glob(f"{source.stem}.*.pyc")
    assert list(compiled), f"no bytecode of {source.name} under {prefix}"
    assert Path(prefix).resolve() != source.parent and not Path(prefix).is_relative_to(
        Path(__file__).resolve().parents[1]
    )
