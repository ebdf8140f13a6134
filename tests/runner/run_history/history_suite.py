"""A small real suite with a cassette (two cases, three turns), for cheap real runs through
`holodeck-lsp run --replay`, and helpers to read what the run history stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from holodeck_lsp.cli import main
from tests.runner.fake_backend import write_agent

CASES = (
    "  - name: sums\n    turns:\n"
    '      - {input: "q0", ground_truth: "206588"}\n'
    '      - {input: "q1", ground_truth: "181001"}\n'
    '  - name: single\n    input: "single"\n    ground_truth: "yes"\n'
)
EQUALITY = "evaluations:\n  metrics:\n    - type: standard\n      metric: equality\n"


def _turn(text: str, response: str) -> dict[str, Any]:
    usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    return {"input": text, "response": response, "tool_calls": [], "token_usage": usage,
            "error": None, "duration_ms": 12}  # fmt: skip


def write_suite(folder: Path, answers: tuple[str, str, str] = ("206588", "181001", "yes")) -> Path:
    """agent.yaml and cassette.json in `folder`; the cassette's path."""
    write_agent(folder, CASES, EQUALITY)
    return write_cassette(folder / "cassette.json", answers)


def write_cassette(path: Path, answers: tuple[str, str, str]) -> Path:
    data = {
        "format": "holodeck-cassette",
        "version": 2,
        "agent": "agent",
        "cases": [
            {"name": "sums", "index": 0,
             "turns": [_turn("q0", answers[0]), _turn("q1", answers[1])]},
            {"name": "single", "index": 1, "turns": [_turn("single", answers[2])]},
        ],
    }  # fmt: skip
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def replay(folder: Path, cassette: Path, *extra: str) -> int:
    return main(["run", str(folder), "--replay", str(cassette), "--quiet", *extra])


def run_folders(folder: Path) -> list[Path]:
    runs = folder / ".holodeck" / "runs"
    return sorted(p for p in runs.iterdir() if p.is_dir() and not p.name.startswith("."))
