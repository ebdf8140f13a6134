"""A turn in Semantic Kernel's terms and back (runner/backends/sk/messages.py), with SK's own
content types and the usage objects its OpenAI connector stores. SK and openai are imported
inside the tests, not at collection (tests/test_collection_imports.py says why)."""

from __future__ import annotations

from pathlib import Path

from holodeck_lsp.runner.backends.base import TurnFile
from holodeck_lsp.runner.backends.sk.kernel_functions import CallRecord
from holodeck_lsp.runner.backends.sk.messages import invocations, text_of, usage, user_message
from holodeck_lsp.schema.results import TokenUsage


def test_user_message_puts_the_text_first_then_each_file() -> None:
    from semantic_kernel.contents import AuthorRole, ImageContent, TextContent

    files = [
        TurnFile(Path("/a/notes.txt"), "text", "text/plain", text="hello", description="notes"),
        TurnFile(Path("/a/chart.png"), "image", "image/png", data=b"\x89PNG"),
    ]
    message = user_message("What is shown?", files)
    assert message.role is AuthorRole.USER
    texts = [item.text for item in message.items if isinstance(item, TextContent)]
    assert texts == ["What is shown?", "File notes.txt (notes):\nhello", "File chart.png:"]
    [image] = [item for item in message.items if isinstance(item, ImageContent)]
    assert image.mime_type == "image/png"


def test_text_of_joins_only_text_items() -> None:
    from semantic_kernel.contents import (
        AuthorRole,
        ChatMessageContent,
        FunctionCallContent,
        TextContent,
    )

    message = ChatMessageContent(
        role=AuthorRole.ASSISTANT,
        items=[
            TextContent(text="4"),
            FunctionCallContent(id="c", name="t-f", arguments="{}"),
            TextContent(text="2"),
        ],
    )
    assert text_of(message) == "42"


def test_invocations_in_the_models_order_with_what_each_tool_did() -> None:
    from semantic_kernel.contents import (
        AuthorRole,
        ChatMessageContent,
        FunctionCallContent,
        FunctionResultContent,
    )

    turn = [
        ChatMessageContent(
            role=AuthorRole.ASSISTANT,
            items=[
                FunctionCallContent(id="1", name="math-subtract", arguments='{"a": 10, "b": 4}'),
                FunctionCallContent(id="2", name="math-divide", arguments={"a": 1, "b": 0}),
                FunctionCallContent(id="3", name="math-nope", arguments="{}"),
                FunctionCallContent(id="4", name="math-bad", arguments="{not json"),
                FunctionCallContent(id="5", name="math-list", arguments="[1]"),
            ],
        ),
        ChatMessageContent(
            role=AuthorRole.TOOL,
            items=[
                FunctionResultContent(id="3", name="math-nope", result="unknown function"),
                FunctionResultContent(id="4", name="math-bad", result="malformed"),
            ],
        ),
    ]
    calls = {
        "1": CallRecord(ran=True, result=6, duration_ms=3),
        "2": CallRecord(ran=True, error="ZeroDivisionError: division by zero", duration_ms=1),
    }
    found = invocations(turn, calls, lambda call: call.function_name != "nope")
    assert [(i.name, i.args, i.result, i.error, i.call_problem) for i in found] == [
        ("math-subtract", {"a": 10, "b": 4}, 6, None, None),
        ("math-divide", {"a": 1, "b": 0}, None, "ZeroDivisionError: division by zero", None),
        ("math-nope", {}, None, "unknown function", "unknown_tool"),
        ("math-bad", {}, None, "malformed", "invalid_json"),
        ("math-list", {}, None, "not run: no result was given", "invalid_json"),
    ]
    assert [i.raw_arguments for i in found] == [
        '{"a": 10, "b": 4}',
        None,  # sent as an object: no text to keep
        "{}",
        "{not json",
        "[1]",
    ]
    assert found[0].duration_ms == 3


def test_usage_sums_every_response_of_the_turn() -> None:
    from openai.types import CompletionUsage as OpenAIUsage
    from openai.types.completion_usage import PromptTokensDetails
    from semantic_kernel.connectors.ai.completion_usage import CompletionUsage
    from semantic_kernel.contents import AuthorRole, ChatMessageContent

    first = CompletionUsage.from_openai(
        OpenAIUsage(
            prompt_tokens=100,
            completion_tokens=10,
            total_tokens=110,
            prompt_tokens_details=PromptTokensDetails(cached_tokens=64),
        )
    )
    second = CompletionUsage(prompt_tokens=120, completion_tokens=5)
    messages = [
        ChatMessageContent(role=AuthorRole.ASSISTANT, content="", metadata={"usage": first}),
        ChatMessageContent(role=AuthorRole.TOOL, content="6"),  # a tool result: no usage
        ChatMessageContent(role=AuthorRole.ASSISTANT, content="6", metadata={"usage": second}),
    ]
    assert usage(messages) == TokenUsage(
        prompt_tokens=220, completion_tokens=15, total_tokens=235, cache_read_tokens=64
    )
    assert usage([ChatMessageContent(role=AuthorRole.ASSISTANT, content="x")]) is None
