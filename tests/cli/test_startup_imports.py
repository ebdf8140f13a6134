"""What a plain `holodeck-lsp run` (a replayed one-case agent) and `check` import and how
they start: comparing (`--baseline`, a matrix's paired statistics), urllib's HTTP stack and
the regex engine load only when a run needs them, and a command's modules import with the
garbage collector off and are frozen afterwards, the collector back on for the command
(docs/benchmarks.md, "Start-up cost, issue 37 item 7"). One fresh interpreter per command,
as a user's shell gives it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from holodeck_lsp.exit_codes import EXIT_CANNOT_RUN

#: Imported only by the paths that need them (each was imported by every run before).
ONLY_WHEN_USED = (
    "holodeck_lsp.runner.run_history.comparison_sides",  # --baseline
    "holodeck_lsp.engine.comparison_statistics",  # a run of several models
    "holodeck_lsp.schema.comparison",
    "msgspec",
    "urllib.request",  # proxies, read when a live client is built
    "http.client",
    "regex",  # the first regex matcher run
)

AGENT = """\
name: tiny
model: {provider: openai, name: gpt-4o-mini}
instructions: {inline: Answer briefly.}
evaluations:
  metrics:
    - {type: standard, metric: equality}
test_cases:
  - {name: one, input: q, ground_truth: "yes"}
"""
CASSETTE = {
    "format": "holodeck-cassette",
    "version": 2,
    "agent": "tiny",
    "cases": [{"name": "one", "index": 0, "turns": [{
        "input": "q", "response": "yes", "tool_calls": [], "error": None, "duration_ms": 1,
        "token_usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }]}],
}  # fmt: skip

#: Runs the command in this interpreter, then reports what it imported and the GC's state.
PROBE = """\
import gc, json, sys
from holodeck_lsp.cli import main
status = main(sys.argv[1:])
print(json.dumps({"status": status, "modules": sorted(sys.modules),
                  "gc_enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}))
"""


def _probe(tmp_path: Path, *args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "HOLODECK_PREFLIGHT": "0"},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return found


def _suite(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "agent.yaml").write_text(AGENT, encoding="utf-8")
    cassette = folder / "cassette.json"
    cassette.write_text(json.dumps(CASSETTE), encoding="utf-8")
    return folder, cassette


def test_a_replayed_run_imports_only_what_it_uses_and_freezes_its_import_heap(
    tmp_path: Path,
) -> None:
    folder, cassette = _suite(tmp_path)
    found = _probe(tmp_path, "run", str(folder), "--replay", str(cassette), "--quiet")
    assert found["status"] == 0  # the case passed: the run really ran
    modules = set(found["modules"])  # type: ignore[call-overload]
    assert "holodeck_lsp.runner.execution.executor" in modules  # the reading works
    assert sorted(name for name in ONLY_WHEN_USED if name in modules) == []
    # The collector runs again for what the run allocates (the freeze after the import is
    # pinned by the check below: a run freezes its heap later too, commands/run/startup_heap.py).
    assert found["gc_enabled"] is True


def test_check_freezes_its_import_heap_and_leaves_the_collector_on(tmp_path: Path) -> None:
    folder, _ = _suite(tmp_path)
    found = _probe(tmp_path, "check", str(folder))
    assert found["status"] == 0
    assert found["frozen"] > 0  # type: ignore[operator]  # frozen by cli.py after the import
    assert found["gc_enabled"] is True


def test_a_max_cost_refusal_comes_before_any_model_sdk_loads(tmp_path: Path) -> None:
    """`--max-cost` for a model without a price is refused before a backend is built: a live
    run's models are known from the request (Semantic Kernel's import alone takes seconds)."""
    folder, _ = _suite(tmp_path)
    (folder / "agent.yaml").write_text(AGENT.replace("gpt-4o-mini", "gpt-house"), encoding="utf-8")
    for extra in ((), ("--model", "ollama:house-model")):
        found = _probe(tmp_path, "run", str(folder), "--max-cost", "1", "--quiet", *extra)
        assert found["status"] == EXIT_CANNOT_RUN, extra
        modules = set(found["modules"])  # type: ignore[call-overload]
        assert {"semantic_kernel", "openai"} & modules == set(), extra
