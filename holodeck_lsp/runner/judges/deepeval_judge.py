"""G-Eval and the RAG metrics, graded by deepeval (the library upstream HoloDeck uses),
through our own transport.

deepeval is imported on the first live judgement only (the `judges` extra), with its
telemetry, update check and `.env` loading switched off first. Its metrics are given a
`DeepEvalBaseLLM` of ours (`_Judge`), so every prompt goes through `JudgeTransport` — the
run's concurrency limit, its timeouts, the token count, and no network but the judge's
endpoint. Like any custom deepeval model it gets no log-probabilities: G-Eval scores
with the judge's stated 0–10 score, normalised to 0..1 by deepeval.

Mapping (upstream's `_create_evaluators`): geval → `GEval(name, criteria,
evaluation_params, evaluation_steps, threshold, strict_mode)`; faithfulness →
`FaithfulnessMetric`, answer_relevancy → `AnswerRelevancyMetric`, contextual_precision /
recall / relevancy → `Contextual{Precision,Recall,Relevancy}Metric`, each with
`threshold` and `include_reason`.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from holodeck_lsp.engine.evaluators.judges import JudgeRequest
from holodeck_lsp.runner.judges.transport import JudgeCallError, Reply

INSTALL_HINT = "install the judges extra: pip install 'holodeck-lsp[judges]'"

#: deepeval's switches, set before it is imported: no telemetry, no update check, no
#: reading the user's `.env` or a `.deepeval` key file into the run.
QUIET_ENVIRONMENT = {
    "DEEPEVAL_TELEMETRY_OPT_OUT": "1",
    "DEEPEVAL_UPDATE_WARNING_OPT_IN": "0",
    "DEEPEVAL_DISABLE_DOTENV": "1",
    "DEEPEVAL_DISABLE_LEGACY_KEYFILE": "1",
}

#: `(prompt, JSON schema, schema name) -> reply`: one call to the judge.
Complete = Callable[[str, dict[str, Any] | None, str], Awaitable[Reply]]


def available() -> bool:
    """Is deepeval installed (without importing it)?"""
    return importlib.util.find_spec("deepeval") is not None


@dataclass(slots=True)
class Calls:
    """What one judgement's calls cost."""

    replies: list[Reply] = field(default_factory=list)


_imported: tuple[Any, Any, Any] | None = None


def _import() -> Any:
    global _imported
    if _imported is not None:  # asked several times per judgement: once is enough
        return _imported
    if not available():
        raise JudgeCallError(f"G-Eval and RAG metrics need deepeval: {INSTALL_HINT}")
    os.environ.update(QUIET_ENVIRONMENT)
    import deepeval.metrics as metrics
    import deepeval.models as models
    import deepeval.test_case as test_case

    _imported = (metrics, models, test_case)
    return _imported


def prepare() -> None:
    """Import deepeval ahead of the first judgement (see JudgePool.prepare)."""
    _import()


_judge_class: Any = None


def _judge_model(complete: Complete, calls: Calls, label: str) -> Any:
    """A deepeval model whose every generation is one call through `complete`."""
    global _judge_class
    _, models, _ = _import()
    if _judge_class is None:

        class _Judge(models.DeepEvalBaseLLM):  # type: ignore[misc, name-defined]
            def __init__(self, complete: Complete, calls: Calls, label: str) -> None:
                self._complete = complete
                self._calls = calls
                self._label = label

            def load_model(self) -> Any:
                return self

            def get_model_name(self) -> str:
                return self._label

            def generate(self, prompt: str, schema: Any = None) -> Any:
                raise JudgeCallError("holodeck-lsp judges asynchronously only")

            async def a_generate(self, prompt: str, schema: Any = None) -> Any:
                json_schema = _json_schema(schema) if schema is not None else None
                name = schema.__name__ if schema is not None else "text"
                reply = await self._complete(prompt, json_schema, name)
                self._calls.replies.append(reply)
                if schema is None:
                    return reply.text
                try:
                    return schema.model_validate_json(_json_part(reply.text))
                except ValueError:
                    raise JudgeCallError(
                        f"the judge {self._label} did not answer the {name} JSON deepeval "
                        f"asked for: {reply.text[:120]!r}"
                    ) from None

        _judge_class = _Judge
    return _judge_class(complete, calls, label)


@functools.cache
def _json_schema(schema: type[Any]) -> dict[str, Any]:
    """deepeval asks with the same few schema classes on every turn: pydantic rebuilds the
    JSON schema each time it is asked (a millisecond each, twice a G-Eval judgement)."""
    result: dict[str, Any] = schema.model_json_schema()
    return result


def _json_part(text: str) -> str:
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if start != -1 and end > start else text


_RAG_CLASSES = {
    "faithfulness": "FaithfulnessMetric",
    "answer_relevancy": "AnswerRelevancyMetric",
    "contextual_precision": "ContextualPrecisionMetric",
    "contextual_recall": "ContextualRecallMetric",
    "contextual_relevancy": "ContextualRelevancyMetric",
}


def _metric(request: JudgeRequest, model: Any, threshold: float) -> Any:
    metrics, _, test_case = _import()
    if request.kind == "geval":
        params = [test_case.SingleTurnParams(p) for p in request.evaluation_params or ()]
        return metrics.GEval(
            name=request.metric,
            criteria=request.criteria,
            evaluation_params=params,
            evaluation_steps=list(request.evaluation_steps) if request.evaluation_steps else None,
            model=model,
            threshold=threshold,
            strict_mode=request.strict_mode,
            async_mode=True,
        )
    cls = getattr(metrics, _RAG_CLASSES[request.metric])
    return cls(
        model=model,
        threshold=threshold,
        include_reason=request.include_reason,
        async_mode=True,
    )


async def judge_with_deepeval(
    request: JudgeRequest, complete: Complete, label: str, threshold: float = 0.5
) -> tuple[float, str | None, list[Reply]]:
    """(score 0..1, reason, the calls made) of a geval or rag request."""
    calls = Calls()
    model = _judge_model(complete, calls, label)
    metric = _metric(request, model, threshold)
    _, _, test_case = _import()
    case = test_case.LLMTestCase(
        input=request.input or "",
        actual_output=request.actual_output,
        expected_output=request.expected_output,
        retrieval_context=list(request.retrieval_context)
        if request.retrieval_context is not None
        else None,
    )
    try:
        await metric.a_measure(case, _show_indicator=False)
    except JudgeCallError:
        raise
    except Exception as error:  # deepeval's own errors (a reply it could not use, say)
        raise JudgeCallError(
            f"deepeval could not grade with the judge {label}: {type(error).__name__}: {error}"
        ) from None
    score = metric.score
    if score is None:
        raise JudgeCallError(f"the judge {label} gave no score")
    return float(score), metric.reason, calls.replies
