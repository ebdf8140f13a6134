#!/usr/bin/env python3
"""An offline *oracle* for the financial-assistant sample: a chat server on 127.0.0.1 that
answers each ConvFinQA question the way the dataset says it should be answered. It speaks
OpenAI chat completions (Semantic Kernel: openai, ollama) and Anthropic messages, streamed or
not (the Claude Agent SDK's CLI).

It also answers the LLM judge of the sample's G-Eval metric (Ollama's `/api/chat`,
oracle_judge.py).

It is not a model and proves nothing about one. It exists so the whole live pipeline —
backend, HTTP, tool calling through the real `tools.py`, per-turn grading, reports — can be
seen and tested without a GPU, a download or an API key.

    python scripts/oracle_server.py --port 8765 [--mistakes 0.2 --seed 1]
    OLLAMA_HOST=127.0.0.1:8765 holodeck-lsp run .                                        # ollama
    OPENAI_BASE_URL=http://127.0.0.1:8765/v1 OPENAI_API_KEY=oracle holodeck-lsp run .    # openai
    ANTHROPIC_BASE_URL=http://127.0.0.1:8765 ANTHROPIC_API_KEY=oracle holodeck-lsp run . # claude

For every question it recognises (by the conversation's document id and questions, from
data/convfinqa_subset.json) it issues the gold program's tool calls one at a time — a `lookup`
for a value that sits in one table cell, then each step of `turn_program`, `#N` taken from the
result the tool actually returned — and then replies with the dataset's answer.

`--mistakes SHARE --seed S` makes that share of turns wrong, chosen reproducibly: a plausible
slip (the neighbouring column's value instead of the right one, or a figure off by 10%) that
flows through the calls into the answer, so reports show pinpointed failures. The plan is
printed at start-up and served at `GET /oracle/plan`.

`--latency-ms MS` holds every answer to a POST (chat completions, messages, the judge) for MS
milliseconds before sending it, the way a hosted model keeps a client waiting. Each request
has its own thread and sleeps in it, so 64 requests at once wait 64 × MS in parallel, not one
after another: the server stands in for a provider when measuring a run's parallel speed-up.
`--subset` serves another converter output, e.g. the whole dev split (`--n all`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # oracle_plan, oracle_apis

from oracle_apis import (
    MODEL_NAME,
    anthropic_error,
    anthropic_events,
    anthropic_message,
    anthropic_stream,
    is_conversation,
    openai_error,
    openai_events,
    openai_reply,
)
from oracle_judge import is_judge_request, judge_content, judge_reply
from oracle_plan import SAMPLE_DIR, Answer, Oracle, OracleError, TurnPlan, build_plans

__all__ = ["Oracle", "OracleError", "TurnPlan", "build_plans", "main", "make_server"]

DEFAULT_SUBSET = SAMPLE_DIR / "data" / "convfinqa_subset.json"


class OracleHTTPServer(ThreadingHTTPServer):
    """One thread per connection (daemon: a stuck client never keeps the process alive), and
    a listen backlog for a run's worth of connections: the default of 5 drops connections
    when 64 cases connect at once, which the clients see as seconds of retry delay."""

    daemon_threads = True
    request_queue_size = 512


def make_server(
    host: str, port: int, oracle: Oracle, plan_json: str, quiet: bool, latency: float = 0.0
) -> ThreadingHTTPServer:
    """`latency`: seconds each POST's answer waits in its own thread before it is sent."""

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

        def _stream(self, chunks: Sequence[bytes]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Content-Length", str(sum(len(c) for c in chunks)))
            self.end_headers()
            for chunk in chunks:
                self.wfile.write(chunk)

        def _path(self) -> str:
            return self.path.split("?", 1)[0].rstrip("/")

        def do_GET(self) -> None:
            path = self._path()
            if path.endswith("/oracle/plan"):
                self._send(200, plan_json)
            elif path.endswith("/models") and "anthropic-version" in self.headers:
                self._send(200, {"data": [], "has_more": False})
            elif path.endswith("/models"):
                model = {"id": MODEL_NAME, "object": "model", "owned_by": "holodeck-sample"}
                self._send(200, {"object": "list", "data": [model]})
            else:
                about = "ConvFinQA gold answers for the financial-assistant sample; not a model"
                self._send(200, {"oracle": about})

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if latency > 0:
                time.sleep(latency)  # this request's thread only; others carry on
            path = self._path()
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError as error:
                self._send(400, openai_error(f"oracle: the body is not JSON: {error}"))
                return
            if path.endswith("/api/chat"):  # the LLM judge (provider ollama)
                self._send(200, judge_reply(body))
            elif path.endswith("/chat/completions"):
                self._answer(body, self._openai, openai_error)
            elif path.endswith("/messages/count_tokens"):
                self._send(200, {"input_tokens": len(raw) // 4})
            elif path.endswith("/messages"):
                self._answer(body, self._anthropic, anthropic_error)
            elif "anthropic-version" in self.headers:
                self._send(200, {})  # the CLI's telemetry and other side calls
            else:
                message = f"oracle: no route {self.path}; POST …/chat/completions or …/v1/messages"
                self._send(404, openai_error(message))

        def _answer(
            self, body: Any, handle: Callable[[Any], None], error: Callable[[str], Any]
        ) -> None:
            try:
                handle(body)
            except OracleError as problem:
                self._send(400, error(f"oracle: {problem}"))

        def _openai(self, body: Any) -> None:
            if body.get("stream"):
                raise OracleError("chat completions are not streamed here; send stream: false")
            if is_judge_request(body):
                self._send(200, openai_reply(Answer(judge_content(body)), body))
                return
            events, tools = openai_events(body)
            self._send(200, openai_reply(oracle.next_step(events, tools), body))

        def _anthropic(self, body: Any) -> None:
            if is_judge_request(body):
                message = anthropic_message(Answer(judge_content(body)), body)
            elif is_conversation(body):
                events, tools = anthropic_events(body)
                message = anthropic_message(oracle.next_step(events, tools), body)
            else:
                message = anthropic_message("ok", body)
            if body.get("stream"):
                self._stream(list(anthropic_stream(message)))
            else:
                self._send(200, message)

    return OracleHTTPServer((host, port), Handler)


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
    parser.add_argument(
        "--latency-ms",
        type=float,
        default=0.0,
        metavar="MS",
        help="hold each answer this many milliseconds, concurrently per request (default 0)",
    )
    parser.add_argument("--quiet", action="store_true", help="no request log")
    args = parser.parse_args(argv)
    if not 0.0 <= args.mistakes <= 1.0:
        parser.error("--mistakes is a share between 0 and 1")
    if args.latency_ms < 0:
        parser.error("--latency-ms is 0 or more milliseconds")

    subset = json.loads(args.subset.read_text(encoding="utf-8"))
    plans = build_plans(subset, args.mistakes, args.seed)
    plan_json = json.dumps(
        {record_id: [asdict(p) for p in turns] for record_id, turns in plans.items()}
    )
    server = make_server(
        args.host, args.port, Oracle(plans), plan_json, args.quiet, args.latency_ms / 1000
    )
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
    if args.latency_ms:
        print(f"oracle: each answer held {args.latency_ms:g} ms", file=sys.stderr)
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
