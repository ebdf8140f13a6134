"""Our judge prompt for the four standard judged metrics: groundedness, relevance,
coherence, fluency.

Upstream HoloDeck grades them with azure-ai-evaluation (an Azure OpenAI judge only), on a
1–5 scale divided by 5. azure-ai-evaluation 1.18 does not fit here (docs/grading.md says
why), so holodeck-lsp asks the judge itself, on the same 1–5 scale with the same scaling,
with any of the runner's providers. Each metric's question follows what its upstream
evaluator measures; the prompt is ours. One call per metric per turn.
"""

from __future__ import annotations

import json
from typing import Any

from holodeck_lsp.engine.evaluators.judges import JudgeRequest

#: The judged quality of each metric, and what it reads.
QUESTIONS = {
    "groundedness": (
        "GROUNDEDNESS: is every claim in the RESPONSE supported by the CONTEXT? 5 = every "
        "claim is supported by the context; 3 = some claims are supported, some are not; "
        "1 = the response contradicts the context or is unrelated to it."
    ),
    "relevance": (
        "RELEVANCE: does the RESPONSE answer the QUERY? 5 = it answers the query fully and "
        "only that; 3 = it answers part of it or drifts; 1 = it does not address the query."
    ),
    "coherence": (
        "COHERENCE: is the RESPONSE logically ordered and consistent, each idea following "
        "from the last, in answer to the QUERY? 5 = clear and consistent throughout; 3 = "
        "understandable with gaps or jumps; 1 = disjointed or self-contradictory."
    ),
    "fluency": (
        "FLUENCY: is the RESPONSE well-formed, grammatical and readable language? 5 = "
        "fluent and natural; 3 = readable with noticeable errors; 1 = hard to read."
    ),
}

#: The JSON the judge answers with (structured output where the provider supports it).
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "score": {"type": "integer", "minimum": 1, "maximum": 5},
        "reason": {"type": "string"},
    },
    "required": ["score", "reason"],
}
SCHEMA_NAME = "StandardJudgement"
SCALE = 5


def prompt(request: JudgeRequest) -> str:
    """The judge prompt of a standard judged metric."""
    question = request.custom_prompt or QUESTIONS[request.metric]
    parts = [
        "You are grading an AI assistant's answer. Rate it on a scale of 1 to 5.",
        question,
        "",
        f"QUERY:\n{request.input or ''}",
        f"RESPONSE:\n{request.actual_output}",
    ]
    if request.retrieval_context is not None:
        parts.append("CONTEXT:\n" + "\n\n".join(request.retrieval_context))
    parts += [
        "",
        'Answer with JSON only: {"score": <integer 1-5>, "reason": "<one or two sentences>"}',
    ]
    return "\n".join(parts)


def parse(text: str) -> tuple[float, str]:
    """(score on 0..1, reason) from the judge's reply; ValueError says what is wrong."""
    try:
        data = json.loads(_json_part(text))
    except json.JSONDecodeError:
        raise ValueError(f"the judge's reply is not JSON: {text[:120]!r}") from None
    if not isinstance(data, dict) or "score" not in data:
        raise ValueError(f'the judge\'s reply has no "score": {text[:120]!r}')
    raw = data["score"]
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise ValueError(f"the judge's score is not a number: {raw!r}")
    if not 1 <= raw <= SCALE:
        raise ValueError(f"the judge's score {raw} is outside its 1–{SCALE} scale")
    return raw / SCALE, str(data.get("reason") or "")


def _json_part(text: str) -> str:
    """The JSON object in a reply that wrapped it in prose or a code fence."""
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if start != -1 and end > start else text
