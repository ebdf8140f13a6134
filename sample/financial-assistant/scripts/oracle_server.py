#!/usr/bin/env python3
"""An offline *oracle* for the financial-assistant sample: an OpenAI-compatible
chat-completions server on 127.0.0.1 that answers each ConvFinQA question the way the dataset
says it should be answered.

It is not a model and proves nothing about one. It exists so the whole live pipeline —
backend, HTTP, tool calling through the real `tools.py`, per-turn grading, reports — can be
seen and tested without a GPU, a download or an API key.

    python scripts/oracle_server.py --port 8765 [--mistakes 0.2 --seed 1]
    OLLAMA_HOST=http://127.0.0.1:8765 holodeck-lsp run .            # provider: ollama
    OPENAI_BASE_URL=http://127.0.0.1:8765/v1 OPENAI_API_KEY=oracle holodeck-lsp run .  # openai

For every question it recognises (by the conversation's document id and questions, from
data/convfinqa_subset.json) it issues the gold program's tool calls one at a time — a `lookup`
for a value that sits in one table cell, then each step of `turn_program`, `#N` taken from the
result the tool actually returned — and then replies with the dataset's answer.

`--mistakes SHARE --seed S` makes that share of turns wrong, chosen reproducibly: a plausible
slip (the neighbouring column's value instead of the right one, or a figure off by 10%) that
flows through the calls into the answer, so reports show pinpointed failures. The plan is
printed at start-up and served at `GET /oracle/plan`.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SAMPLE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SAMPLE_DIR))

from convfinqa import (  # noqa: E402  (the sample folder is not a package)
    OPERATIONS,
    cells_holding,
    parse_number,
    parse_program,
    resolve,
)

DEFAULT_SUBSET = SAMPLE_DIR / "data" / "convfinqa_subset.json"
MODEL_NAME = "convfinqa-oracle"


# ----------------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Call:
    """One tool call the oracle will make; operands may be `#N` (the Nth call's result)."""

    tool: str
    args: dict[str, Any]


@dataclass
class TurnPlan:
    case: str
    turn: int
    question: str
    answer: str
    calls: list[Call]
    mistake: str | None = None  # what was perturbed, for the log and /oracle/plan
    refs: list[dict[str, int]] = field(default_factory=list)  # arg -> call index, per call


def _format_like(value: float, gold: str) -> str:
    """`value` written the way the dataset wrote `gold` (percent sign, decimals)."""
    text = gold.strip()
    percent = text.endswith("%")
    body = text[:-1] if percent else text
    decimals = len(body.split(".", 1)[1]) if "." in body else 0
    shown = value * 100 if percent else value
    return f"{shown:.{decimals}f}" + ("%" if percent else "")


def _other_cell(
    table: Mapping[str, Mapping[str, object]], value: float
) -> tuple[str, str, float] | None:
    """A plausible wrong reading of `value`: the same row, a neighbouring column."""
    cells = cells_holding(table, value)
    if len(cells) != 1:
        return None
    row, column = cells[0]
    columns = list(table)
    position = columns.index(column)
    for other in columns[position + 1 :] + columns[:position][::-1]:
        cell = table[other].get(row)
        if isinstance(cell, int | float) and not isinstance(cell, bool) and cell != value:
            return row, other, float(cell)
    return None


def _turn_plan(dialogue: Mapping[str, Any], turn: int, wrong: bool) -> TurnPlan:
    record_id = dialogue["id"]
    table = dialogue["doc"]["table"]
    question = dialogue["dialogue"]["conv_questions"][turn]
    answer = dialogue["dialogue"]["conv_answers"][turn]
    program = parse_program(dialogue["dialogue"]["turn_program"][turn])
    plan = TurnPlan(dialogue["test_case"]["name"], turn, question, answer, [])

    if not program.steps:  # a value read from the page
        assert program.bare_value is not None
        value = program.bare_value
        cells = cells_holding(table, value)
        if len(cells) == 1:
            row, column = cells[0]
            if wrong and (slip := _other_cell(table, value)) is not None:
                row, column, value = slip
                plan.mistake = f"looked up column {column!r} instead of {cells[0][1]!r}"
            plan.calls.append(
                Call("lookup", {"document_id": record_id, "row": row, "column": column})
            )
        if wrong and plan.mistake is None:
            value *= 1.1
            plan.mistake = "read the figure 10% too high"
        if plan.mistake:
            plan.answer = _format_like(value, answer)
        return plan

    # Steps of the program; a perturbed turn misreads the last step's first written number.
    gold = program.values()
    slipped: tuple[int, int, float] | None = None
    if wrong:
        for step in reversed(program.steps):
            literal = [i for i, o in enumerate(step.operands) if o.kind == "literal"]
            if literal:
                slot = literal[0]
                original = resolve(step.operands[slot], gold)
                other = _other_cell(table, original)
                replacement = other[2] if other else round(original * 1.1, 2)
                slipped = (step.index, slot, replacement)
                where = f"column {other[1]!r}" if other else "a figure 10% too high"
                plan.mistake = (
                    f"step {step.index} {step.text}: used {replacement:g} ({where}) "
                    f"for {original:g}"
                )
                break
    values: list[float | str] = []
    for step in program.steps:
        operands: list[float] = []
        refs: dict[str, int] = {}
        for slot, (name, operand) in enumerate(zip(("a", "b"), step.operands, strict=True)):
            number = resolve(operand, values)
            if slipped is not None and slipped[:2] == (step.index, slot):
                number = slipped[2]
            if operand.ref is not None:
                refs[name] = operand.ref
            operands.append(number)
        values.append(OPERATIONS[step.operation](operands[0], operands[1]))
        plan.calls.append(Call(step.operation, {"a": operands[0], "b": operands[1]}))
        plan.refs.append(refs)
    if plan.mistake:
        final = values[-1]
        plan.answer = final if isinstance(final, str) else _format_like(final, answer)
    return plan


def build_plans(subset: Mapping[str, Any], mistakes: float, seed: int) -> dict[str, list[TurnPlan]]:
    """Every dialogue's turns, by document id; which turns go wrong depends only on the seed."""
    rng = random.Random(seed)
    plans: dict[str, list[TurnPlan]] = {}
    for dialogue in subset["dialogues"]:
        turns = len(dialogue["dialogue"]["conv_questions"])
        plans[dialogue["id"]] = [
            _turn_plan(dialogue, turn, rng.random() < mistakes) for turn in range(turns)
        ]
    return plans


# ----------------------------------------------------------------------------- the protocol


class OracleError(Exception):
    """A request the oracle cannot answer; sent back as an OpenAI-style 400 error."""


def _text_parts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        ]
    return []


class Oracle:
    def __init__(self, plans: dict[str, list[TurnPlan]]) -> None:
        self.plans = plans

    def _dialogue(self, questions: Sequence[str], first_message: str) -> list[TurnPlan]:
        for record_id, turns in self.plans.items():
            if f"Document id: {record_id}" in first_message:
                return turns
        for turns in self.plans.values():  # no page attached: match the questions alone
            asked = [plan.question for plan in turns[: len(questions)]]
            if len(asked) == len(questions) and all(
                q.strip().startswith(a) for q, a in zip(questions, asked, strict=True)
            ):
                return turns
        raise OracleError(
            f"the oracle only knows the sample's ConvFinQA dialogues; not this one "
            f"(first question: {questions[0][:80]!r})"
        )

    def answer(self, body: Mapping[str, Any]) -> dict[str, Any]:
        if body.get("stream"):
            raise OracleError("the oracle does not stream; send stream: false")
        messages: list[Mapping[str, Any]] = list(body.get("messages") or [])
        user = [i for i, m in enumerate(messages) if m.get("role") == "user"]
        if not user:
            raise OracleError("no user message in the request")
        parts = [_text_parts(messages[i].get("content")) for i in user]
        questions = [p[0] if p else "" for p in parts]
        turns = self._dialogue(questions, "\n".join(parts[0]))
        index = len(user) - 1
        if index >= len(turns):
            raise OracleError(
                f"the dialogue has {len(turns)} questions; this is question {index + 1}"
            )
        plan = turns[index]
        if not questions[-1].strip().startswith(plan.question):
            raise OracleError(
                f"question {index + 1} should be {plan.question!r}, got {questions[-1][:80]!r}"
            )

        since = messages[user[-1] + 1 :]
        results = [m.get("content") for m in since if m.get("role") == "tool"]
        made = sum(len(m.get("tool_calls") or []) for m in since if m.get("role") == "assistant")
        if made < len(plan.calls):
            return _tool_call_reply(plan, made, results, body)
        return _text_reply(plan.answer, body)


def _tool_name(tool: str, offered: Sequence[str]) -> str:
    for name in offered:
        if name == tool or name.endswith(f"-{tool}") or name.endswith(f"_{tool}"):
            return name
    raise OracleError(
        f"the agent offers no {tool!r} tool (it offers: {', '.join(offered) or 'none'})"
    )


def _result_number(text: Any, fallback: float) -> float:
    try:
        return parse_number(str(text))
    except ValueError:
        return fallback


def _tool_call_reply(
    plan: TurnPlan, made: int, results: Sequence[Any], body: Mapping[str, Any]
) -> dict[str, Any]:
    call = plan.calls[made]
    args = dict(call.args)
    if call.tool != "lookup":
        # `#N` is what the tool returned for call N (it may differ from the program's value).
        for name, ref in plan.refs[made].items():
            if ref < len(results):
                args[name] = _result_number(results[ref], args[name])
    offered = [t["function"]["name"] for t in body.get("tools") or [] if "function" in t]
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{plan.case}_{plan.turn}_{made}",
                "type": "function",
                "function": {"name": _tool_name(call.tool, offered), "arguments": json.dumps(args)},
            }
        ],
    }
    return _completion(message, "tool_calls", body)


def _text_reply(text: str, body: Mapping[str, Any]) -> dict[str, Any]:
    return _completion({"role": "assistant", "content": text}, "stop", body)


def _completion(message: Mapping[str, Any], finish: str, body: Mapping[str, Any]) -> dict[str, Any]:
    prompt = len(json.dumps(body.get("messages") or [])) // 4
    completion = len(json.dumps(message)) // 4
    return {
        "id": "chatcmpl-oracle",
        "object": "chat.completion",
        "created": 0,
        "model": str(body.get("model") or MODEL_NAME),
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


# ----------------------------------------------------------------------------- HTTP


def make_server(
    host: str, port: int, oracle: Oracle, plan_json: str, quiet: bool
) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            if not quiet:
                super().log_message(format, *args)

        def _send(self, status: int, payload: Any) -> None:
            data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0].rstrip("/")
            if path.endswith("/oracle/plan"):
                self._send(200, plan_json)
            elif path.endswith("/models"):
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": [
                            {"id": MODEL_NAME, "object": "model", "owned_by": "holodeck-sample"}
                        ],
                    },
                )
            else:
                self._send(
                    200,
                    {
                        "oracle": "ConvFinQA gold answers for the financial-assistant "
                        "sample; not a model"
                    },
                )

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if not self.path.split("?", 1)[0].endswith("/chat/completions"):
                self._send(
                    404,
                    {
                        "error": {
                            "message": f"no route {self.path}; POST …/chat/completions",
                            "type": "invalid_request_error",
                        }
                    },
                )
                return
            try:
                body = json.loads(raw or b"{}")
                self._send(200, oracle.answer(body))
            except (OracleError, json.JSONDecodeError) as error:
                self._send(
                    400, {"error": {"message": f"oracle: {error}", "type": "invalid_request_error"}}
                )

    return ThreadingHTTPServer((host, port), Handler)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=8765, help="port; 0 picks a free one (default 8765)"
    )
    parser.add_argument(
        "--subset", type=Path, default=DEFAULT_SUBSET, help="data/convfinqa_subset.json"
    )
    parser.add_argument(
        "--mistakes", type=float, default=0.0, help="share of turns answered wrongly (0-1)"
    )
    parser.add_argument("--seed", type=int, default=1, help="which turns go wrong (default 1)")
    parser.add_argument("--quiet", action="store_true", help="no request log")
    args = parser.parse_args(argv)
    if not 0.0 <= args.mistakes <= 1.0:
        parser.error("--mistakes is a share between 0 and 1")

    subset = json.loads(args.subset.read_text(encoding="utf-8"))
    plans = build_plans(subset, args.mistakes, args.seed)
    plan_json = json.dumps(
        {record_id: [asdict(p) for p in turns] for record_id, turns in plans.items()}
    )
    server = make_server(args.host, args.port, Oracle(plans), plan_json, args.quiet)
    host, port = server.server_address[:2]
    wrong = [p for turns in plans.values() for p in turns if p.mistake]
    print(
        "oracle: not a model — it answers with ConvFinQA's gold programs and answers",
        file=sys.stderr,
    )
    for plan in wrong:
        print(
            f"oracle: wrong on purpose: {plan.case} turn {plan.turn}: {plan.mistake}",
            file=sys.stderr,
        )
    print(
        f"oracle listening on http://{host}:{port} ({len(wrong)} turns wrong on purpose)",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
