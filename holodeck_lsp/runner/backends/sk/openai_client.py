"""The provider's HTTP client and SK chat service, and an SK/HTTP failure as a backend error.

Ollama runs through its OpenAI-compatible endpoint (`<endpoint>/v1`), so all three providers
use SK's OpenAI connector with an `AsyncOpenAI`/`AsyncAzureOpenAI` client built here: that
keeps SK from reading `OPENAI_*` / `AZURE_OPENAI_*` settings out of the process environment
behind the `env` we were given, and lets plain-HTTP endpoints (local proxies, test servers)
through, which SK's own Azure settings reject.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from holodeck_lsp.runner.backends.base import (
    BackendConnectionError,
    BackendError,
    BackendInitError,
    BackendProviderError,
    BackendSessionError,
    BackendTimeoutError,
)
from holodeck_lsp.runner.backends.providers import PROVIDERS, ProviderRow
from holodeck_lsp.runner.backends.sk.limited_client import limited_http_client
from holodeck_lsp.schema.llm import LLMProvider

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from semantic_kernel.connectors.ai.open_ai.services.open_ai_chat_completion_base import (
        OpenAIChatCompletionBase,
    )

#: Ollama ignores the key, but the OpenAI client refuses to start without one.
OLLAMA_PLACEHOLDER_KEY = "ollama"
#: HTTP statuses after which every later turn would fail the same way (bad key, no access,
#: unknown model or deployment): the session is dead.
_FATAL_STATUSES = frozenset({401, 403, 404})
#: Seconds an agent's HTTP call may wait for the provider's answer when the agent sets no
#: `llm_timeout` (the openai client's own default otherwise: 600 s, 5 s to connect).
HTTP_TIMEOUT_VARIABLE = "HOLODECK_HTTP_TIMEOUT"


def _secret(model: LLMProvider) -> str | None:
    key = model.api_key.get_secret_value().strip() if model.api_key is not None else ""
    return key or None


def http_timeout(env: Mapping[str, str]) -> float | None:
    """`HOLODECK_HTTP_TIMEOUT` seconds, or None (the client's default) when unset or bad."""
    try:
        seconds = float(env.get(HTTP_TIMEOUT_VARIABLE, ""))
    except ValueError:
        return None
    return seconds if seconds > 0 else None


def read_timeout(client: AsyncOpenAI) -> float | None:
    """The seconds `client` waits for an answer (for the message of an HTTP timeout)."""
    timeout: Any = client.timeout
    if isinstance(timeout, int | float):
        return float(timeout)
    read = getattr(timeout, "read", None)
    return float(read) if isinstance(read, int | float) else None


def _required_key(
    model: LLMProvider, env: Mapping[str, str], row: ProviderRow, example: str = ""
) -> str:
    """`model.api_key`, else the row's key variable; BackendInitError naming both when neither
    is set."""
    key = _secret(model) or env.get(row.key_variable or "", "").strip()
    if not key:
        raise BackendInitError(
            f"provider {row.provider.value} needs an API key: set the {row.key_variable} "
            f"environment variable or `model.api_key` in agent.yaml{example}"
        )
    return key


def _openai(
    model: LLMProvider,
    env: Mapping[str, str],
    row: ProviderRow,
    retries: int | None,
    **options: Any,
) -> AsyncOpenAI:
    from openai import AsyncOpenAI

    key = _required_key(model, env, row, example=" (e.g. `api_key: ${MY_KEY}`)")
    # Explicit, so OPENAI_BASE_URL from the process environment cannot override it.
    base_url = row.endpoint(model.endpoint, env)
    http_client = limited_http_client(base_url, model, retries)
    return AsyncOpenAI(api_key=key, base_url=base_url, http_client=http_client, **options)


def _azure(
    model: LLMProvider,
    env: Mapping[str, str],
    row: ProviderRow,
    retries: int | None,
    **options: Any,
) -> AsyncOpenAI:
    from openai import AsyncAzureOpenAI

    key = _required_key(model, env, row)
    from semantic_kernel.connectors.ai.open_ai.const import DEFAULT_AZURE_API_VERSION

    api_version = (
        model.api_version or env.get("AZURE_OPENAI_API_VERSION") or DEFAULT_AZURE_API_VERSION
    )
    assert model.endpoint is not None  # the schema requires it for azure_openai
    return AsyncAzureOpenAI(
        api_key=key,
        azure_endpoint=model.endpoint,
        azure_deployment=model.name,
        api_version=api_version or DEFAULT_AZURE_API_VERSION,
        http_client=limited_http_client(model.endpoint, model, retries),
        **options,
    )


def _ollama(
    model: LLMProvider,
    env: Mapping[str, str],
    row: ProviderRow,
    retries: int | None,
    **options: Any,
) -> AsyncOpenAI:
    from openai import AsyncOpenAI

    base = row.endpoint(model.endpoint, env).rstrip("/")
    if not base.endswith("/v1"):
        base += "/v1"  # Ollama's OpenAI-compatible API
    key = _secret(model) or OLLAMA_PLACEHOLDER_KEY
    http_client = limited_http_client(base, model, retries)
    return AsyncOpenAI(api_key=key, base_url=base, http_client=http_client, **options)


#: The client builders a provider row names in `sk_client` (backends/providers.py).
SK_CLIENTS: dict[str, Callable[..., AsyncOpenAI]] = {
    "openai_api": _openai,
    "azure_deployment": _azure,
    "ollama_v1": _ollama,
}


def make_client(
    model: LLMProvider,
    env: Mapping[str, str],
    *,
    max_retries: int | None,
    timeout: float | None,
) -> AsyncOpenAI:
    """The HTTP client for the provider; BackendInitError names the missing key or setting.

    The client's own retries are off: every request goes through the endpoint's limiter
    (runner/limits/), which retries within the turn's budget (`max_retries` is its size
    for a lone request) and shares the endpoint's rate with the judges."""
    from openai import OpenAIError

    options: dict[str, Any] = {"max_retries": 0}
    if timeout is not None:
        options["timeout"] = float(timeout)
    row = PROVIDERS[model.provider]
    build = SK_CLIENTS.get(row.sk_client or "")
    if build is None:
        raise BackendInitError(f"provider {row.provider.value} does not run on Semantic Kernel")
    try:
        return build(model, env, row, max_retries, **options)
    except OpenAIError as error:
        raise BackendInitError(f"provider {row.provider.value}: {error}") from error


def make_service(model: LLMProvider, client: AsyncOpenAI) -> OpenAIChatCompletionBase:
    from openai import AsyncAzureOpenAI
    from semantic_kernel.connectors.ai.open_ai import AzureChatCompletion, OpenAIChatCompletion
    from semantic_kernel.exceptions import ServiceInitializationError

    try:
        if isinstance(client, AsyncAzureOpenAI):
            return AzureChatCompletion(
                service_id="agent", deployment_name=model.name, async_client=client
            )
        return OpenAIChatCompletion(service_id="agent", ai_model_id=model.name, async_client=client)
    except ServiceInitializationError as error:
        raise BackendInitError(f"provider {model.provider.value}: {error}") from error


_E = TypeVar("_E", bound=BaseException)


def session_error(
    error: Exception, where: str, *, llm_timeout: float | None, http_timeout: float | None = None
) -> BackendError:
    """An SK/HTTP failure as the backend error the executor understands.

    An HTTP timeout is the case's verdict when the agent sets `llm_timeout` (the client's
    timeout is then `llm_timeout`: make_client) -> BackendTimeoutError, a failure; without
    one it is the HTTP client's own (`http_timeout` seconds), the provider's weather ->
    BackendProviderError, errored. 408/409/429/5xx and connection errors ->
    BackendProviderError (the turn is errored, not failed: the retry budget was spent on the
    provider's weather). HTTP
    401/403/404 (key, permission, model or deployment name) -> not recoverable: every later
    turn would fail the same way. Anything else (a 400 for this turn's content) ->
    recoverable; the half turn was dropped from the history, so the conversation stays well
    formed."""
    if isinstance(error, BackendError):
        return error
    import openai

    cause = _find_cause(error, openai.APIError)
    if isinstance(cause, openai.APITimeoutError):
        if llm_timeout is not None:
            # The client's timeout is the case's `llm_timeout` (make_client): upstream's
            # verdict of failure, not the provider's weather.
            return BackendTimeoutError(f"{where}: request timed out")
        # No `llm_timeout`, so no verdict to give: the provider did not answer in the
        # client's own time, like a dropped connection.
        within = f" within the HTTP timeout ({http_timeout:g}s)" if http_timeout else ""
        return BackendProviderError(
            f"{where}: the provider did not answer{within}; the agent sets no llm_timeout"
        )
    if isinstance(cause, openai.APIStatusError):
        status = cause.status_code
        hint = ""
        if status in (401, 403):
            hint = " (check the API key: `model.api_key` or the provider's environment variable)"
        elif status == 404:
            hint = " (check `model.name` and `model.endpoint`)"
        if is_provider_status(status):
            return BackendProviderError(f"{where}: HTTP {status}: {cause.message}")
        return BackendSessionError(
            f"{where}: HTTP {status}: {cause.message}{hint}",
            recoverable=status not in _FATAL_STATUSES,
        )
    if isinstance(cause, openai.APIConnectionError):
        return BackendConnectionError(f"{where}: connection failed: {cause}", recoverable=True)
    return BackendSessionError(f"{where}: {type(error).__name__}: {error}", recoverable=True)


def is_provider_status(status: int) -> bool:
    """Statuses that say the provider could not answer now, not that the request was wrong."""
    return status in (408, 409, 429) or status >= 500


def _find_cause(error: BaseException, kind: type[_E]) -> _E | None:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None
