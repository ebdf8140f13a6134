#!/usr/bin/env python3
"""An offline *oracle* for the tau2-retail sample: one chat server on 127.0.0.1 (OpenAI chat
completions) that plays both sides of each case's conversation, and the judge. It is not a
model and proves nothing about one: it lets the whole live pipeline (the simulated user, the
agent's backend, tool calling through the real tools_retail.py on each case's own τ²
database, the at-end grader and judge, reports) run and be tested with no key.

* The **scripted simulator** (a request that offers no tools: the simulated user never sees
  the agent's tools) is recognised by its system prompt, the case's `simulated_user.
  instructions`. It opens with a line of its own naming the case (a simulated user that
  repeats its instructions verbatim is a simulator failure); once the agent has answered, it
  thanks it and ends with `###STOP###`.
* The **oracle agent** (a request offering the tools) is recognised by the simulator's
  opening line. It makes the task's reference actions (τ²'s `evaluation_criteria.actions`)
  one call at a time, then answers with a summary that names the task's `communicate_info`.
* The **judge** (a request asking for JSON, no tools) passes every NL assertion.

    python sample/tau2-retail/scripts/tau2_oracle_server.py --port 8767
    OPENAI_BASE_URL=http://127.0.0.1:8767/v1 OPENAI_API_KEY=oracle \
        holodeck-lsp run sample/tau2-retail
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml

SAMPLE_DIR = Path(__file__).resolve().parent.parent
STOP = "Thank you, that is all I needed. ###STOP###"
STEPS = ["Read the conversation.", "Check each expected outcome.", "Score 1 if all are met."]


class OracleError(Exception):
    """A request the oracle cannot answer: a 400 error in the API's format."""


@dataclass(frozen=True)
class CallTool:
    id: str
    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Answer:
    text: str


def openai_reply(step: CallTool | Answer, body: Mapping[str, Any]) -> dict[str, Any]:
    """One chat completion: a tool call, or a text answer."""
    if isinstance(step, CallTool):
        function = {"name": step.name, "arguments": json.dumps(step.args)}
        call = {"id": step.id, "type": "function", "function": function}
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        reason = "tool_calls"
    else:
        message, reason = {"role": "assistant", "content": step.text}, "stop"
    used = len(json.dumps(body.get("messages"))) // 4  # a rough count; nobody bills the oracle
    return {
        "id": "chatcmpl-oracle",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "oracle"),
        "choices": [{"index": 0, "message": message, "finish_reason": reason}],
        "usage": {"prompt_tokens": used, "completion_tokens": 20, "total_tokens": used + 20},
    }


def openai_error(text: str) -> dict[str, Any]:
    return {"error": {"message": text, "type": "invalid_request_error"}}


@dataclass(frozen=True)
class Script:
    case: str
    opening: str
    #: The reference actions: (tool, arguments).
    calls: tuple[tuple[str, dict[str, Any]], ...]
    summary: str


def _opening(case: str) -> str:
    """The scripted user's first message: one per case (the oracle agent tells the cases
    apart by it), in words of its own — a simulated user repeating its instructions verbatim
    is a simulator failure (docs/simulated-users.md)."""
    return f"Hello, I would like some help with my orders, please. (Scripted user of {case}.)"


def load_scripts(sample: Path = SAMPLE_DIR) -> dict[str, Script]:
    """Simulator instructions -> the case's script, from agent.yaml and τ²'s tasks."""
    agent = yaml.safe_load((sample / "agent.yaml").read_text(encoding="utf-8"))
    data = sample / "tau2_bench" / "data" / "tau2" / "domains" / "retail" / "tasks.json"
    tasks = {task["id"]: task for task in json.loads(data.read_text(encoding="utf-8"))}
    scripts: dict[str, Script] = {}
    for case in agent["test_cases"]:
        task = tasks[case["name"].partition("_")[2]]
        criteria = task["evaluation_criteria"]
        calls = tuple((a["name"], a["arguments"]) for a in criteria.get("actions") or [])
        told = " ".join(criteria.get("communicate_info") or [])
        summary = f"All done: your request is complete. {told}".strip()
        script = Script(case["name"], _opening(case["name"]), calls, summary)
        scripts[case["simulated_user"]["instructions"].strip()] = script
    return scripts


def _offered(tool: str, offered: Sequence[str]) -> str:
    for name in offered:
        if name == tool or name.endswith((f"-{tool}", f"__{tool}")):
            return name
    raise OracleError(f"the agent offers no {tool!r} tool ({len(offered)} tools offered)")


class Tau2Oracle:
    def __init__(self, scripts: dict[str, Script]) -> None:
        self.by_instructions = scripts
        self.by_opening = {script.opening: script for script in scripts.values()}

    def simulator_step(self, messages: Sequence[Mapping[str, Any]]) -> Answer:
        system = next((m for m in messages if m.get("role") == "system"), None)
        script = self.by_instructions.get(str((system or {}).get("content", "")).strip())
        if script is None:
            raise OracleError("the scripted simulator knows only the sample's cases")
        # Roles are flipped for the simulator: its own messages come as "assistant", the
        # agent's as "user". Asked again after its opening, the agent has answered.
        said = [m for m in messages if m.get("role") == "assistant" and m.get("content")]
        return Answer(STOP) if said else Answer(script.opening)

    def agent_step(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[str]
    ) -> CallTool | Answer:
        texts = [str(m.get("content")) for m in messages if m.get("role") == "user"]
        script = next(
            (self.by_opening[t] for t in map(str.strip, texts) if t in self.by_opening), None
        )
        if script is None:
            raise OracleError("the oracle agent knows only the sample's cases")
        made = {
            str(call.get("id"))
            for m in messages
            if m.get("role") == "assistant"
            for call in m.get("tool_calls") or []
        }
        done = sum(f"call_{script.case}_{n}" in made for n in range(len(script.calls)))
        if done >= len(script.calls):
            return Answer(script.summary)
        name, args = script.calls[done]
        return CallTool(f"call_{script.case}_{done}", _offered(name, tools), dict(args))

    def reply(self, body: Mapping[str, Any]) -> dict[str, Any]:
        messages = body.get("messages") or []
        tools = [t["function"]["name"] for t in body.get("tools") or [] if "function" in t]
        if tools:
            return openai_reply(self.agent_step(messages, tools), body)
        if "response_format" in body:  # a judge: steps, or a passing score
            named = (body.get("response_format") or {}).get("json_schema", {}).get("name")
            content = {"steps": STEPS} if named == "Steps" else {"score": 1, "reason": "met"}
            return openai_reply(Answer(json.dumps(content)), body)
        return openai_reply(self.simulator_step(messages), body)


def make_server(host: str, port: int, oracle: Tau2Oracle, quiet: bool) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            if not quiet:
                super().log_message(format, *args)

        def _send(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._send(200, {"object": "list", "data": [{"id": "oracle", "object": "model"}]})

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, openai_error(f"oracle: no route {self.path}"))
                return
            try:
                self._send(200, oracle.reply(json.loads(raw or b"{}")))
            except (OracleError, ValueError) as problem:
                self._send(400, openai_error(f"oracle: {problem}"))

    return ThreadingHTTPServer((host, port), Handler)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8767, help="0 picks a free one (default 8767)")
    parser.add_argument("--quiet", action="store_true", help="no request log")
    args = parser.parse_args(argv)
    scripts = load_scripts()
    server = make_server(args.host, args.port, Tau2Oracle(scripts), args.quiet)
    host, port = server.server_address[:2]
    print("oracle: not a model — τ²'s reference actions and a scripted user", file=sys.stderr)
    print(f"oracle listening on http://{host}:{port} ({len(scripts)} cases)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
