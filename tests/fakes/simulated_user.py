"""A scripted simulated user on the loopback fakes: the simulator's model is one of the fake
provider servers (tests/fakes/openai_server.py, anthropic_server.py), answering each request
with the next line of the user's script, and these helpers read back what the simulator was
sent (its system prompt, the flipped conversation) in either wire format."""

from __future__ import annotations

from typing import Any

from tests.fakes import anthropic_server, openai_server


def openai_user(*messages: str) -> list[openai_server.Reply]:
    """The simulator's messages as OpenAI chat completions, in order."""
    return [openai_server.Reply(text=message) for message in messages]


def anthropic_user(*messages: str) -> list[anthropic_server.Reply]:
    """The simulator's messages as Anthropic Messages replies, in order."""
    return [anthropic_server.Reply(text=message) for message in messages]


def sent_to_simulator(body: Any) -> tuple[str | None, list[tuple[str, str]]]:
    """(system prompt, [(role, text), ...]) of one request to the simulator, in either wire
    format (the system prompt a first `system` message, or the Messages API's `system`)."""
    assert isinstance(body, dict)
    messages = list(body.get("messages") or [])
    system = body.get("system")
    if messages and messages[0].get("role") == "system":
        system = messages.pop(0)["content"]
    return system, [(m["role"], m["content"]) for m in messages]
