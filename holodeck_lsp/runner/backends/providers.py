"""The providers, one row each: which backend runs it, the pip extra and SDK it needs, the
environment variable holding its key, and where its endpoint is by default.

Everything that depends on the provider reads this table — creating a backend
(backends/create.py), telling a missing extra before importing anything (models/
model_matrix.py), the endpoint check and the missing-key rule (backends/preflight.py) and the
`--model` help — so a new provider is one row here plus its backend module.

Light on purpose (schema.llm only): the model matrix reads it while parsing `--model`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

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
        ),
        ProviderRow(
            Provider.AZURE_OPENAI, *_SK,
            label="Azure OpenAI",
            key_variable="AZURE_OPENAI_API_KEY",
            endpoint_from_env=lambda env: None,
            default_endpoint="",
            endpoint_hint="check `model.endpoint`",
        ),
        ProviderRow(
            Provider.OLLAMA, *_SK,
            label="Ollama",
            key_variable=None,
            endpoint_from_env=_ollama_host,
            default_endpoint="http://localhost:11434",
            endpoint_hint="is it running (`ollama serve`)? set OLLAMA_HOST or `model.endpoint`",
        ),
        ProviderRow(
            Provider.ANTHROPIC,
            "claude_backend", "ClaudeBackend", "claude", "claude_agent_sdk",
            label="the Anthropic API",
            key_variable="ANTHROPIC_API_KEY",
            endpoint_from_env=_variable("ANTHROPIC_BASE_URL"),
            default_endpoint="https://api.anthropic.com",
            endpoint_hint="check `model.endpoint` or ANTHROPIC_BASE_URL",
        ),
    )
}  # fmt: skip


def provider_names() -> str:
    """The providers as `--model` help and error messages list them."""
    return ", ".join(provider.value for provider in PROVIDERS)


def missing_extra_message(row: ProviderRow, detail: str) -> str:
    return (
        f"provider {row.provider.value} needs the `{row.extra}` extra ({detail}): "
        f"pip install 'holodeck-lsp[{row.extra}]'"
    )
