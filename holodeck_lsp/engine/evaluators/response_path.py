"""`response_path`: grade one value of a JSON response instead of the whole text.

The path is dotted keys with `[index]` parts — `answer`, `result.value`, `items[0].score` —
already checked for form when agent.yaml is loaded. The leaf must be a scalar and is read
as text the way HoloDeck reads it, with Python's `str()`: strings as they are, numbers as
Python writes them (`25587`, `0.5`, `1e-07`, `nan`), booleans as `True` / `False` and `null`
as `None` (so `equality` against `ground_truth: "True"` agrees with upstream). An object or
array leaf is an error, as is a response that is not JSON or a path that is not there.

A response that is one fenced code block (```` ```json … ``` ````, which models often
write) is read as the JSON inside the fence; anything else around the JSON is an error.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from holodeck_lsp.engine.evaluators._common import failed_result, shown
from holodeck_lsp.schema.metrics import StandardMetric
from holodeck_lsp.schema.results import MetricResult

_STEP = re.compile(r"([A-Za-z_][\w-]*)|\[(\d+)\]")
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```", re.DOTALL)


class ResponsePathError(ValueError):
    """The response cannot be read at the path; the message says why."""


@lru_cache(maxsize=256)
def path_steps(path: str) -> tuple[str | int, ...]:
    """`items[0].score` → `("items", 0, "score")`."""
    return tuple(
        key if key else int(index) for key, index in (m.groups() for m in _STEP.finditer(path))
    )


def _json_of(response: str, path: str) -> Any:
    try:
        return json.loads(response)
    except ValueError as error:
        reason = str(error)
    fenced = _FENCE.fullmatch(response.strip())
    if fenced is not None:
        try:
            return json.loads(fenced.group(1))
        except ValueError as error:
            reason = str(error)
    raise ResponsePathError(
        f'response_path "{path}": the agent response is not JSON ({reason}): {shown(response)}'
    )


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def extract(response: str, path: str) -> str:
    """The scalar at `path` in the JSON `response`, as text. Raises `ResponsePathError`."""
    node = _json_of(response, path)
    where = "the response"
    for step in path_steps(path):
        if isinstance(step, int):
            if not isinstance(node, list):
                raise ResponsePathError(
                    f'response_path "{path}": {where} is {_kind(node)}, not an array'
                )
            if step >= len(node):
                raise ResponsePathError(
                    f'response_path "{path}": {where} has {len(node)} item(s), no [{step}]'
                )
            node = node[step]
            where = f"{where}[{step}]" if where != "the response" else f"[{step}]"
        else:
            if not isinstance(node, dict):
                raise ResponsePathError(
                    f'response_path "{path}": {where} is {_kind(node)}, not an object'
                )
            if step not in node:
                keys = ", ".join(json.dumps(k) for k in list(node)[:10]) or "none"
                raise ResponsePathError(
                    f'response_path "{path}": no key "{step}" in {where} (keys: {keys})'
                )
            node = node[step]
            where = step if where == "the response" else f"{where}.{step}"
    if isinstance(node, str):
        return node
    if node is None or isinstance(node, bool | int | float):
        # Upstream coerces the leaf with str(): True, False, None, nan (not JSON's spelling).
        return str(node)
    raise ResponsePathError(f'response_path "{path}": {where} is {_kind(node)}, not a single value')


def text_to_grade(
    metric: StandardMetric, response: str, threshold: float | None
) -> str | MetricResult:
    """The text a metric grades: the response, or the JSON leaf at its `response_path`; a
    failed result when that path cannot be read from the response."""
    if metric.response_path is None:
        return response
    try:
        return extract(response, metric.response_path)
    except ResponsePathError as error:
        return failed_result(metric, str(error), threshold)
