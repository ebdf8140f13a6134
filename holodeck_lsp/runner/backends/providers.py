"""The providers, one row each: which backend runs it, the pip extra and SDK it needs, the
environment variable holding its key, where its endpoint is by default, how a judge talks to
it and whose prices it charges.

Everything that depends on the provider reads this table — creating a backend
(backends/create.py), the SK client (backends/sk/openai_client.py), telling a missing extra
before importing anything (models/model_matrix.py), the endpoint check and the missing-key rule
(backends/preflight.py), the judges' HTTP client (judges/transport.py), the price lookup
(pricing/price_list.py) and the `--model` help — so a new provider is its enum value
(schema/providers.py) plus one row here, and its backend module when no existing one fits.
No module outside this table branches on a provider's name (tests/runner/backends/
test_provider_table.py checks it).

Light on purpose (schema.llm and the pure judge dialects only): the model matrix reads it
while parsing `--model`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from holodeck_lsp.runner.backends.judge_dialects import (
    ANTHROPIC_MESSAGES,
    AZURE_CHAT,
    OLLAMA_CHAT,
    OPENAI_CHAT,
    JudgeDialect,
)
from holodeck_lsp.schema.llm import Provider


def _ollama_host(env: Mapping[str, str]) -> str | None:
    """`OLLAMA_HOST` as a URL, as Ollama's own CLI reads it (`127.0.0.1:8765`, `myhost`,
    `http://myhost:11434`): the server to use when the agent sets no `model.endpoint`."""
    raw = env.get("OLLAMA_HOST", "").strip()
    if not raw:
        return None
    url = raw if "://" in raw else f"http://{raw}"
    scheme, rest = url.split("://", 1)
    host = rest.split("/", 1)[0]
    if ":" not in host.rsplit("]", 1)[-1]:  # no port (an IPv6 literal keeps its colons)
        url = f"{scheme}://{host}:11434" + rest[len(host) :]
    return url


def _variable(name: str) -> Callable[[Mapping[str, str]], str | None]:
    return lambda env: env.get(name) or None


@dataclass(frozen=True, slots=True)
class ProviderRow:
    provider: Provider
    #: Module under holodeck_lsp.runner.backends, and the AgentBackend class in it.
    backend_module: str
    backend_class: str
    #: `pip install 'holodeck-lsp[EXTRA]'`, and the module that extra installs.
    extra: str
    sdk_module: str
    #: What the user calls the service in messages.
    label: str
    #: The environment variable holding the API key (None: the provider needs none).
    key_variable: str | None
    #: The endpoint when `model.endpoint` is not set: from the environment, else the default.
    endpoint_from_env: Callable[[Mapping[str, str]], str | None]
    default_endpoint: str
    #: How to point the run elsewhere, said when the endpoint does not answer.
    endpoint_hint: str
    #: How a judge model of this provider is asked over HTTP (judges/transport.py).
    judge: JudgeDialect
    #: For a Semantic Kernel provider: which client builder of backends/sk/openai_client.py
    #: (`SK_CLIENTS`) makes its HTTP client. None for the other backends.
    sk_client: str | None = None
    #: The provider whose entries in the price list this one's models cost (the same models
    #: sold under another endpoint); None: its own.
    priced_as: Provider | None = None

    def endpoint(self, configured: str | None, env: Mapping[str, str]) -> str:
        """The URL the backend will talk to, resolved as the backend resolves it."""
        return configured or self.endpoint_from_env(env) or self.default_endpoint


_SK = ("semantic_kernel_backend", "SemanticKernelBackend", "sk", "semantic_kernel")
PROVIDERS: dict[Provider, ProviderRow] = {
    row.provider: row
    for row in (
        ProviderRow(
            Provider.OPENAI, *_SK,
            label="the OpenAI API",
            key_variable="OPENAI_API_KEY",
            endpoint_from_env=_variable("OPENAI_BASE_URL"),
            default_endpoint="https://api.openai.com/v1",
            endpoint_hint="check `model.endpoint` or OPENAI_BASE_URL",
            judge=OPENAI_CHAT,
            sk_client="openai_api",
        ),
        ProviderRow(
            Provider.AZURE_OPENAI, *_SK,
            label="Azure OpenAI",
            key_variable="AZURE_OPENAI_API_KEY",
            endpoint_from_env=lambda env: None,
            default_endpoint="",
            endpoint_hint="check `model.endpoint`",
            judge=AZURE_CHAT,
            sk_client="azure_deployment",
            priced_as=Provider.OPENAI,
        ),
        ProviderRow(
            Provider.OLLAMA, *_SK,
            label="Ollama",
            key_variable=None,
            endpoint_from_env=_ollama_host,
            default_endpoint="http://localhost:11434",
            endpoint_hint="is it running (`ollama serve`)? set OLLAMA_HOST or `model.endpoint`",
            judge=OLLAMA_CHAT,
            sk_client="ollama_v1",
        ),
        ProviderRow(
            Provider.ANTHROPIC,
            "claude_backend", "ClaudeBackend", "claude", "claude_agent_sdk",
            label="the Anthropic API",
            key_variable="ANTHROPIC_API_KEY",
            endpoint_from_env=_variable("ANTHROPIC_BASE_URL"),
            default_endpoint="https://api.anthropic.com",
            endpoint_hint="check `model.endpoint` or ANTHROPIC_BASE_URL",
            judge=ANTHROPIC_MESSAGES,
        ),
    )
}  # fmt: skip


def provider_names() -> str:
    """The providers as `--model` help and error messages list them."""
    return ", ".join(provider.value for provider in PROVIDERS)


def price_provider(provider: str) -> str:
    """The provider whose prices `provider:name` costs (a name not in the table: itself)."""
    row = next((row for row in PROVIDERS.values() if row.provider.value == provider), None)
    if row is None or row.priced_as is None:
        return provider
    return row.priced_as.value


def missing_extra_message(row: ProviderRow, detail: str) -> str:
    return (
        f"provider {row.provider.value} needs the `{row.extra}` extra ({detail}): "
        f"pip install 'holodeck-lsp[{row.extra}]'"
    )
