"""The simulated user's model over the wire: its instructions as the system prompt, the
conversation with the roles flipped (the agent's messages as `user`, its own as `assistant`),
the reply text back (docs/simulated-users.md, "How the simulator is asked").

It speaks each provider's own API through the provider row's dialect (backends/providers.py,
backends/judge_dialects.py), as the judges do (judges/transport.py): the same endpoints, keys,
limiter and retry budget. A failure raises SimulatorError: the simulator's, never the agent's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from holodeck_lsp.runner.backends.providers import PROVIDERS
from holodeck_lsp.runner.limits.registry import limiter_for
from holodeck_lsp.runner.limits.transport import limited_transport
from holodeck_lsp.schema.llm import LLMProvider, model_label
from holodeck_lsp.schema.results import TokenUsage

#: The first `user` message of the flipped conversation when no agent message exists yet: the
#: Messages API needs one, and it tells the simulator to open the conversation.
OPENING = "(The conversation starts: write your first message to the agent.)"
#: Seconds one simulator call may take.
DEFAULT_TIMEOUT = 120.0


class SimulatorError(Exception):
    """The simulator's provider could not answer, or answered in a shape we cannot read."""


def flipped(exchanges: Sequence[tuple[str, str | None]]) -> list[dict[str, str]]:
    """The conversation as the simulator sees it: each (user message, agent answer) pair with
    the roles swapped, after the opening line."""
    messages = [{"role": "user", "content": OPENING}]
    for user_message, answer in exchanges:
        messages.append({"role": "assistant", "content": user_message})
        messages.append({"role": "user", "content": answer or "(no answer)"})
    return messages


class SimulatorClient:
    """One simulated user's model (one client per case conversation)."""

    def __init__(self, model: LLMProvider, env: Mapping[str, str]) -> None:
        self.model = model
        self.label = model_label(model.provider, model.name)
        row = PROVIDERS[model.provider]
        self._dialect = row.judge
        key: str | None = None
        if row.key_variable is not None:
            secret = model.api_key.get_secret_value().strip() if model.api_key else ""
            key = secret or env.get(row.key_variable, "").strip() or None
            if key is None:
                raise SimulatorError(
                    f"the simulated user's model {self.label} needs an API key: set "
                    f"{row.key_variable} or `simulated_user.model.api_key`"
                )
        self._base = self._dialect.base(row.endpoint(model.endpoint, env))
        self._url = self._dialect.url(model, self._base, env)
        self._headers = self._dialect.headers(key)
        #: An httpx.AsyncClient once the first message is asked for (httpx is imported then:
        #: the judges' extra and every backend extra bring it, the core does not).
        self._client: Any = None

    def body(self, instructions: str, messages: list[dict[str, str]]) -> dict[str, Any]:
        body = self._dialect.body(self.model, "", None, "simulated_user")
        if self._dialect.system_at_top:
            body["system"] = instructions
            body["messages"] = messages
        else:
            body["messages"] = [{"role": "system", "content": instructions}, *messages]
        temperature = self.model.temperature if self.model.temperature is not None else 0.0
        if "temperature" in body:
            body["temperature"] = temperature
        if isinstance(body.get("options"), dict):
            body["options"]["temperature"] = temperature
        return body

    async def next_message(
        self,
        instructions: str,
        exchanges: Sequence[tuple[str, str | None]],
        timeout: float = DEFAULT_TIMEOUT,
    ) -> tuple[str, TokenUsage]:
        """The simulator's next message. Raises SimulatorError saying what went wrong."""
        try:
            import httpx
        except ImportError:
            raise SimulatorError(
                "a simulated user needs httpx: pip install 'holodeck-lsp[judges]' (every "
                "backend extra brings it too)"
            ) from None
        if self._client is None:
            transport = limited_transport(httpx, limiter_for(self._base, self.label))
            self._client = httpx.AsyncClient(trust_env=False, transport=transport)
        body = self.body(instructions, flipped(exchanges))
        try:
            response = await self._client.post(
                self._url, json=body, headers=self._headers, timeout=timeout
            )
        except httpx.TimeoutException:
            raise SimulatorError(f"{self.label} did not answer within {timeout:g} s") from None
        except httpx.HTTPError as error:
            raise SimulatorError(
                f"{self.label} cannot be reached ({type(error).__name__}: {error})"
            ) from None
        if response.status_code >= 400:
            raise SimulatorError(
                f"{self.label} answered HTTP {response.status_code}: {response.text[:200]}"
            )
        try:
            parts = self._dialect.reply(response.json())
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise SimulatorError(
                f"{self.label} answered in an unexpected shape: {response.text[:160]!r}"
            ) from None
        if parts.refusal is not None:
            raise SimulatorError(f"{self.label} refused to answer {parts.refusal}".rstrip())
        usage = TokenUsage(
            prompt_tokens=parts.prompt_tokens,
            completion_tokens=parts.completion_tokens,
            total_tokens=parts.prompt_tokens + parts.completion_tokens,
        )
        return parts.text, usage

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
