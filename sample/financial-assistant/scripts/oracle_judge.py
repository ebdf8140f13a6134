"""The oracle's LLM judge: answers the judge prompts of the sample's one G-Eval metric
("Direct": the answer states the number without hedging) over Ollama's `/api/chat`, the
API holodeck-lsp's judges use for provider ollama.

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


def judge_reply(body: Any) -> dict[str, Any]:
    """The `/api/chat` reply to one judge request."""
    messages = body.get("messages") or []
    prompt = "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
    schema = body.get("format") if isinstance(body.get("format"), dict) else {}
    properties = schema.get("properties", {})
    if "steps" in properties:
        content: dict[str, Any] = {"steps": STEPS}
    else:
        answer = answer_of(prompt)
        if answer is not None and BARE_NUMBER.fullmatch(answer):
            content = {"score": 10, "reason": f"The answer {answer} is a bare number."}
        else:
            content = {"score": 2, "reason": f"The answer {answer!r} is not a bare number."}
    return {
        "model": body.get("model"),
        "message": {"role": "assistant", "content": json.dumps(content)},
        "done": True,
        "prompt_eval_count": len(prompt) // 4,
        "eval_count": 20,
    }
