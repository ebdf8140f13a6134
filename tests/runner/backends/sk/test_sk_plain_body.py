"""SK's chat requests skip openai-python's body transform (runner/backends/sk/plain_body.py):
the request on the wire is the one the transform would have produced, and the transform of
such a request is the request itself — the claim the skip rests on, checked on the installed
openai."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.runner.backends.sk.plain_body import send_plain_bodies
from tests.fakes.openai_server import FakeOpenAIServer, Reply, ToolCall, Usage
from tests.runner.backends.test_semantic_kernel_backend import backend_for, load, openai_model


async def a_conversation(tmp_path: Path, fake_openai: FakeOpenAIServer) -> None:
    """Two turns, the first with a tool call: a history with every kind of message."""
    agent = load(tmp_path, openai_model(f"{fake_openai.base_url}/v1"))
    fake_openai.script(
        Reply(tool_calls=[ToolCall("tools-subtract", {"a": 7, "b": 2})], usage=Usage(10, 2)),
        Reply(text="5", usage=Usage(12, 1)),
        Reply(text="yes", usage=Usage(14, 1)),
    )
    backend = backend_for(agent, tmp_path)
    assert getattr(backend._client.chat.completions.create, "_holodeck_plain", False)
    session = await backend.create_session()
    try:
        assert (await session.send("7 - 2?")).response == "5"
        assert (await session.send("sure?")).response == "yes"
    finally:
        await session.close()
        await backend.aclose()


@pytest.mark.slow  # Semantic Kernel's import: 2-3 s
async def test_the_transform_would_change_nothing_in_an_sk_request(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    from openai._utils import async_maybe_transform
    from openai.types.chat import completion_create_params

    await a_conversation(tmp_path, fake_openai)
    last = fake_openai.chat_requests[-1]
    roles = [m["role"] for m in last.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert [t["function"]["name"] for t in last.tools] == ["tools-subtract", "tools-divide"]
    body = dict(last.body)
    transformed = await async_maybe_transform(
        body, completion_create_params.CompletionCreateParamsNonStreaming
    )
    assert transformed == body


async def test_messages_and_tools_reach_the_server_once_and_extra_body_is_kept(
    fake_openai: FakeOpenAIServer,
) -> None:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(api_key="sk-test", base_url=f"{fake_openai.base_url}/v1")
    send_plain_bodies(client)
    send_plain_bodies(client)  # twice is once
    fake_openai.script(Reply(text="hi", usage=Usage(3, 1)))
    messages = ({"role": "user", "content": "hello"},)  # any iterable, as the client accepts
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    try:
        answer = await client.chat.completions.create(
            model="gpt-fake",
            messages=messages,
            tools=iter([tool]),
            temperature=0,
            extra_body={"seed": 7},
        )
    finally:
        await client.close()
    assert answer.choices[0].message.content == "hi"
    [request] = fake_openai.chat_requests
    assert request.body["messages"] == [{"role": "user", "content": "hello"}]
    assert request.body["tools"] == [tool]
    assert (request.body["model"], request.body["temperature"], request.body["seed"]) == (
        "gpt-fake",
        0,
        7,
    )
