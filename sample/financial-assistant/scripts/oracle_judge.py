"""The oracle's LLM judge: answers the judge prompts of the sample's one G-Eval metric
("Direct": the answer states the number without hedging), over Ollama's `/api/chat` (what
holodeck-lsp's judges use for provider ollama), and over chat completions and Anthropic
messages when the sample is switched to openai or anthropic (the judge is the agent's
model).

Like the rest of the oracle it is not a model: it reads the answer out of deepeval's
prompt (`Actual Output:` …) and gives 10 of 10 to a bare number (`25587`, `-3.5`, `14.2%`)
and 2 to anything else, with a one-line reason. Evaluation steps, when deepeval asks for
them, are three fixed sentences. Replies have the JSON shape the request's `format`
schema asks for.
"""

from __future__ import annotations

import json
import re
from typing import Any

BARE_NUMBER = re.compile(r"-?(?:\d+(?:\.\d*)?|\.\d+)%?")
STEPS = [
    "Read the Actual Output.",
    "Check that it is a single number, with no words, ranges or caveats around it.",
    "Score 10 for a bare number, lower the more the answer hedges or adds words.",
]


def answer_of(prompt: str) -> str | None:
    """The agent's answer as deepeval quotes it in a G-Eval prompt."""
    match = re.search(r"Actual Output:\n(.*?) \n\n", prompt, re.S)
    return match.group(1).strip() if match else None


def _prompt(body: Any) -> str:
    messages = body.get("messages") or []
    parts: list[str] = []
    for message in messages if isinstance(messages, list) else []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):  # Anthropic content blocks
            content = "".join(b.get("text", "") for b in content if isinstance(b, dict))
        parts.append(str(content or ""))
    return "\n".join(parts)


def is_judge_request(body: Any) -> bool:
    """A judge's request, not a dialogue turn: holodeck-lsp's judges ask for JSON (OpenAI
    `response_format`; for Anthropic the schema is quoted in the prompt) and offer no tools."""
    if body.get("tools"):
        return False
    return "response_format" in body or "Answer with one JSON object (" in _prompt(body)


def judge_content(body: Any) -> str:
    """The judge's answer, as JSON text: evaluation steps, or a score with its reason."""
    prompt = _prompt(body)
    fmt = body.get("format") if isinstance(body.get("format"), dict) else {}
    named = (body.get("response_format") or {}).get("json_schema", {}).get("name")
    wants_steps = (
        "steps" in fmt.get("properties", {})
        or named == "Steps"
        or ("Answer with one JSON object (Steps)" in prompt)
    )
    if wants_steps:
        return json.dumps({"steps": STEPS})
    answer = answer_of(prompt)
    if answer is not None and BARE_NUMBER.fullmatch(answer):
        return json.dumps({"score": 10, "reason": f"The answer {answer} is a bare number."})
    return json.dumps({"score": 2, "reason": f"The answer {answer!r} is not a bare number."})


def judge_reply(body: Any) -> dict[str, Any]:
    """The `/api/chat` (Ollama) reply to one judge request."""
    return {
        "model": body.get("model"),
        "message": {"role": "assistant", "content": judge_content(body)},
        "done": True,
        "prompt_eval_count": len(_prompt(body)) // 4,
        "eval_count": 20,
    }
