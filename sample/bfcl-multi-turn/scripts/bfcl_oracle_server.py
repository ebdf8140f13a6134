#!/usr/bin/env python3
"""An offline *oracle* for the bfcl-multi-turn sample: a chat server on 127.0.0.1 that answers
every turn of the sample's BFCL records with that turn's ground-truth calls, one call at a
time, then a short reply. It is not a model and proves nothing about one: it lets the whole
live pipeline (backend, HTTP, tool calling through the real tools.py on each case's own BFCL
instances, both graders, reports) run and be tested with no GPU, download or key.

It speaks the same two wire formats as the financial-assistant sample's oracle, whose HTTP
server and protocol code it reuses (../../financial-assistant/scripts/): OpenAI chat
completions (Semantic Kernel: providers ollama and openai) and Anthropic messages (the Claude
Agent SDK's CLI).

    python scripts/bfcl_oracle_server.py --port 8766
    OLLAMA_HOST=127.0.0.1:8766 holodeck-lsp run .                                        # ollama
    OPENAI_BASE_URL=http://127.0.0.1:8766/v1 OPENAI_API_KEY=oracle holodeck-lsp run .    # openai
    ANTHROPIC_BASE_URL=http://127.0.0.1:8766 ANTHROPIC_API_KEY=oracle holodeck-lsp run . # claude

It recognises a conversation by its first user message (a record's turn-0 input, read from
the sample's agent files) and counts the turns by the record's inputs seen so far.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

SAMPLE_DIR = Path(__file__).resolve().parent.parent
FINANCIAL_SCRIPTS = SAMPLE_DIR.parent / "financial-assistant" / "scripts"
sys.path.insert(0, str(FINANCIAL_SCRIPTS))  # the shared HTTP server and wire formats

from oracle_plan import (  # noqa: E402  (the scripts folder is not a package)
    Answer,
    CallTool,
    Event,
    OracleError,
    ToolCalled,
    UserText,
)
from oracle_server import make_server  # noqa: E402

REPLY = "Done."


@dataclass(frozen=True)
class Turn:
    input: str
    #: The ground-truth calls: (function, arguments by name).
    calls: tuple[tuple[str, dict[str, Any]], ...]


def _json_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _parameter_order(agent: dict[str, Any]) -> dict[str, list[str]]:
    return {
        str(tool["name"]): list(tool.get("parameters") or {}) for tool in agent.get("tools") or []
    }


def _named(text: str, order: dict[str, list[str]]) -> tuple[str, dict[str, Any]]:
    """A ground-truth call (`sort('a.txt')`) with every argument named."""
    node = ast.parse(text, mode="eval").body
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name), text
    name = node.func.id
    args = dict(zip(order[name], (ast.literal_eval(a) for a in node.args), strict=False))
    args.update({k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg})
    return name, args


def load_dialogues(sample: Path = SAMPLE_DIR) -> dict[str, list[Turn]]:
    """Record id -> its turns, from the agent files (inputs, parameter order) and data/."""
    truth: dict[str, list[list[str]]] = {}
    for answers in sorted((sample / "data" / "possible_answer").glob("*.json")):
        truth.update({r["id"]: r["ground_truth"] for r in _json_lines(answers)})
    dialogues: dict[str, list[Turn]] = {}
    for path in sorted([*sample.glob("agent.yaml"), *sample.glob("*.agent.yaml")]):
        agent = yaml.safe_load(path.read_text(encoding="utf-8"))
        order = _parameter_order(agent)
        for case in agent.get("test_cases") or []:
            turns = case["turns"]
            dialogues[case["name"]] = [
                Turn(turn["input"], tuple(_named(t, order) for t in truth[case["name"]][i]))
                for i, turn in enumerate(turns)
            ]
    return dialogues


def _offered(tool: str, offered: Sequence[str]) -> str:
    """The name the agent offers `tool` under: `tools-cd` (Semantic Kernel),
    `mcp__tools__cd` (Claude) or `cd`."""
    for name in offered:
        if name == tool or name.endswith((f"-{tool}", f"__{tool}")):
            return name
    raise OracleError(f"the agent offers no {tool!r} tool ({len(offered)} tools offered)")


class BfclOracle:
    def __init__(self, dialogues: dict[str, list[Turn]]) -> None:
        self.dialogues = dialogues
        # Records may open alike (BFCL reuses first requests): all of them, told apart later.
        self._by_first: dict[str, list[str]] = {}
        for rid, turns in dialogues.items():
            self._by_first.setdefault(turns[0].input.strip(), []).append(rid)
        self._index = {rid: n for n, rid in enumerate(dialogues)}

    def _asked(self, texts: Sequence[str], record: str) -> int:
        """How many of the record's inputs the user texts hold, in order."""
        inputs = [turn.input.strip() for turn in self.dialogues[record]]
        asked = 0
        for text in texts:
            if asked < len(inputs) and text == inputs[asked]:
                asked += 1
        return asked

    def next_step(self, events: Sequence[Event], tools: Sequence[str]) -> CallTool | Answer:
        texts = [e.text.strip() for e in events if isinstance(e, UserText)]
        candidates = next((self._by_first[t] for t in texts if t in self._by_first), None)
        if candidates is None:
            first = texts[0][:80] if texts else ""
            raise OracleError(f"the oracle only knows the suite's BFCL records, not {first!r}")
        # The record whose inputs the conversation follows furthest (ties: the first).
        record = max(candidates, key=lambda rid: (self._asked(texts, rid), -candidates.index(rid)))
        asked = self._asked(texts, record)
        turns = self.dialogues[record]
        turn = asked - 1
        prefix = f"call_{self._index[record]}_{turn}_"
        made = {e.id for e in events if isinstance(e, ToolCalled)}
        done = sum(f"{prefix}{n}" in made for n in range(len(turns[turn].calls)))
        if done >= len(turns[turn].calls):
            return Answer(REPLY)
        name, args = turns[turn].calls[done]
        return CallTool(f"{prefix}{done}", _offered(name, tools), args)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8766, help="0 picks a free one (default 8766)")
    parser.add_argument(
        "--suite", type=Path, default=SAMPLE_DIR, help="another imported suite (default: this one)"
    )
    parser.add_argument("--quiet", action="store_true", help="no request log")
    args = parser.parse_args(argv)
    dialogues = load_dialogues(args.suite)
    plan = json.dumps({rid: len(turns) for rid, turns in dialogues.items()})
    server = make_server(args.host, args.port, BfclOracle(dialogues), plan, args.quiet)  # type: ignore[arg-type]
    host, port = server.server_address[:2]
    print("oracle: not a model — it answers with BFCL's ground-truth calls", file=sys.stderr)
    print(f"oracle listening on http://{host}:{port} ({len(dialogues)} records)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
