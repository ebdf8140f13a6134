"""Send Semantic Kernel's chat requests without openai-python's per-request body transform.

openai-python runs every request body through `async_maybe_transform`, which walks each value
against the parameter's TypedDict annotations (renaming aliased keys, formatting dates and
files). For chat completions it walks every message of the history against every member of
the message-param union, and every tool's JSON schema: profiled on the financial-assistant
sample at `--parallel 64` it was a quarter of the run's CPU (3.4 ms a request for a
26-message history, timed without the profiler) — and it changes nothing: no chat-completion
parameter has an alias or a format, and SK hands over plain dicts and lists already
(`prepare_settings_dict` is a pydantic `model_dump`).
`tests/runner/backends/sk/test_sk_plain_body.py` checks that claim on the installed openai:
the transform of a realistic request is the request itself.

So `messages` and `tools` go in `extra_body`, which the client merges into the JSON body
as given (it overrides the empty `messages` the call still passes for the client's checks).
Everything else — model, temperature, tool_choice, headers, retries, timeouts, the response
— takes the client's own path.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openai import AsyncOpenAI

#: The parameters that carry the history and the tool schemas: the transform's whole cost.
PLAIN_PARAMETERS = ("messages", "tools")


def send_plain_bodies(client: AsyncOpenAI) -> None:
    """Make `client.chat.completions.create` (the call SK's OpenAI connector makes) pass
    `messages` and `tools` untransformed. Idempotent; other endpoints are untouched."""
    completions = client.chat.completions  # cached per client, so SK calls this very object
    create: Callable[..., Awaitable[Any]] = completions.create
    if getattr(create, "_holodeck_plain", False):
        return

    async def create_plain(**params: Any) -> Any:
        plain = {name: _listed(params.pop(name)) for name in PLAIN_PARAMETERS if name in params}
        extra = params.pop("extra_body", None) or {}
        return await create(messages=[], extra_body={**plain, **extra}, **params)

    create_plain._holodeck_plain = True  # type: ignore[attr-defined]
    completions.create = create_plain  # type: ignore[method-assign]


def _listed(value: Any) -> Any:
    """What the transform did besides walking: any iterable becomes a JSON array."""
    if value is None or isinstance(value, (list, dict, str)):
        return value
    return list(value)
