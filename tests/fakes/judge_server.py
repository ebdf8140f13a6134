"""A fake LLM judge on 127.0.0.1 that answers deepeval's real prompts (and ours)
deterministically, over the three protocols the judges speak: OpenAI chat completions
(`…/chat/completions`, also Azure's per-deployment path), Ollama's `/api/chat` and
Anthropic's `/v1/messages`.

The reply is built from the JSON Schema the judge asked for (OpenAI `response_format`,
Ollama `format`; for Anthropic the schema quoted at the end of the prompt): every
`verdict` is "yes", every score the top of its scale, every list one item long — unless
the prompt contains a hedge word (`HEDGES`), then verdicts are "no" and scores low. So a
test controls the verdict through the agent's answer.

Faults for the error tests: `fail_next(status)`, `mode` = "malformed" (not JSON),
"refusal", "out_of_range" (a score past the scale), "empty" (no choices). `latency` delays
each reply; `slow` delays the replies to prompts containing a text (so judges answer out of
order); `max_in_flight` is the most requests it ever served at once.

Run standalone (the benchmark, the sample's recording): `python -m tests.fakes.judge_server
--port 0 --latency 0.2` prints `PORT <n>` and serves until killed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from typing import Any

from aiohttp import web

from tests.fakes.loopback_http import LoopbackHTTPServer

HEDGES = ("maybe", "perhaps", "probably", "approximately", "i think")
_NAMED_SCHEMA = re.compile(r"Answer with one JSON object \((\w+)\) matching this JSON Schema, "
                           r"and nothing else:\n(\{.*\})\s*$", re.S)  # fmt: skip


def hedged(prompt: str) -> bool:
    lowered = prompt.lower()
    return any(word in lowered for word in HEDGES)


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return dict(root.get("$defs", {})[ref.removeprefix("#/$defs/")])
    if "anyOf" in schema:
        options = [s for s in schema["anyOf"] if s.get("type") != "null"]
        return _resolve(options[0], root) if options else {"type": "null"}
    return schema


def _documents(prompt: str) -> int:
    match = re.search(r"\((\d+) documents?\)", prompt)
    return int(match.group(1)) if match else 1


def answer(schema: dict[str, Any] | None, prompt: str, mode: str = "ok") -> Any:
    """The deterministic JSON answer to `prompt` in the shape of `schema`."""
    bad = hedged(prompt)
    if schema is None:
        return "The answer hedges." if bad else "The answer is direct."

    def value(name: str, node: dict[str, Any]) -> Any:
        node = _resolve(node, schema)
        kind = node.get("type")
        if kind == "object":
            return {key: value(key, sub) for key, sub in node.get("properties", {}).items()}
        if kind == "array":
            count = _documents(prompt) if name == "verdicts" else 1
            return [value(name.rstrip("s"), node.get("items", {})) for _ in range(count)]
        if name == "verdict":
            return "no" if bad else "yes"
        if name == "score":
            top = float(node.get("maximum", 10))
            if mode == "out_of_range":
                return top * 3
            low = float(node.get("minimum", 0))
            return low + 1 if bad else top
        if kind in ("number", "integer"):
            return 1
        if kind == "boolean":
            return not bad
        if name == "reason":
            return "The answer hedges." if bad else "The answer states it plainly."
        return f"{name} of the answer"

    return value("", schema)


class FakeJudgeServer(LoopbackHTTPServer):
    """Answers judge requests on the OpenAI, Azure, Anthropic and Ollama routes."""

    MAX_BODY = 32 * 1024 * 1024

    def __init__(self, latency: float = 0.0) -> None:
        super().__init__()
        self.latency = latency
        #: Text in a prompt -> extra seconds before its reply.
        self.slow: dict[str, float] = {}
        self.mode = "ok"
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._failures: list[int] = []

    def fail_next(self, status: int = 500, times: int = 1) -> None:
        self._failures += [status] * times

    def prompts(self) -> list[str]:
        found: list[str] = []
        for body in self.requests:
            for message in body.get("messages", []):
                found.append(str(message.get("content", "")))
        return found

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/{tail:.*}", self._handle)

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append(body)
        self.paths.append(request.path_qs)
        self.headers.append(dict(request.headers))
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            prompt = json.dumps(body.get("messages", []))
            delay = self.latency + sum(s for text, s in self.slow.items() if text in prompt)
            if delay:
                await asyncio.sleep(delay)
            if self._failures:
                status = self._failures.pop(0)
                return web.json_response({"error": {"message": "judge overloaded"}}, status=status)
            return self._reply(request.path, body)
        finally:
            self.in_flight -= 1

    def _reply(self, path: str, body: dict[str, Any]) -> web.Response:
        messages = body.get("messages", [])
        prompt = "\n".join(str(m.get("content", "")) for m in messages)
        if path.endswith("/api/chat"):
            schema = body.get("format") if isinstance(body.get("format"), dict) else None
            text = self._text(schema, prompt)
            return web.json_response(
                {
                    "model": body.get("model"),
                    "message": {"role": "assistant", "content": text},
                    "done": True,
                    "prompt_eval_count": 40,
                    "eval_count": 10,
                }
            )
        if path.endswith("/v1/messages"):
            match = _NAMED_SCHEMA.search(prompt)
            schema = json.loads(match.group(2)) if match else None
            if self.mode == "refusal":
                return web.json_response(
                    {"content": [], "stop_reason": "refusal", "usage": {"input_tokens": 40}}
                )
            text = self._text(schema, prompt)
            return web.json_response(
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": "end_turn",
                    "usage": {"input_tokens": 40, "output_tokens": 10},
                }
            )
        fmt = body.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("schema") if isinstance(fmt, dict) else None
        if self.mode == "empty":
            return web.json_response({"choices": [], "usage": {}})
        message: dict[str, Any] = {"role": "assistant", "content": self._text(schema, prompt)}
        if self.mode == "refusal":
            message = {"role": "assistant", "content": None, "refusal": "I cannot judge this."}
        return web.json_response(
            {
                "id": "judge-1",
                "object": "chat.completion",
                "model": body.get("model", "deployment"),
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 40, "completion_tokens": 10, "total_tokens": 50},
            }
        )

    def _text(self, schema: dict[str, Any] | None, prompt: str) -> str:
        if self.mode == "malformed":
            return "Sure! The score is high {not json"
        value = answer(schema, prompt, self.mode)
        return value if isinstance(value, str) else json.dumps(value)


async def _serve(port: int, latency: float) -> None:
    server = FakeJudgeServer(latency=latency)
    await server.start(port)
    print(f"PORT {server.port}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    options = parser.parse_args()
    asyncio.run(_serve(options.port, options.latency))
