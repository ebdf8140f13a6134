"""The cassette of an `import otel` suite: each imported conversation's recorded answers, tool
calls and usage in the runner's cassette format (runner/cassette/), so `run --replay` grades
the conversation as it happened (docs/importing-otel.md, "What it writes")."""

from __future__ import annotations

from holodeck_lsp.importers.otel.conversations import Conversation, ToolCall
from holodeck_lsp.importers.otel.suite import ImportedSuite
from holodeck_lsp.runner.cassette import Cassette
from holodeck_lsp.runner.cassette.format import (
    CassetteCase,
    CassetteToolCall,
    CassetteTurn,
    CassetteUsage,
)


def suite_cassette(suite: ImportedSuite, agent_name: str) -> Cassette:
    cases = [
        CassetteCase(name=name, index=index, turns=_recorded(conversation))
        for index, (name, conversation) in enumerate(
            zip(suite.case_names, suite.conversations, strict=True)
        )
    ]
    return Cassette(agent=agent_name, model=suite.model, cases=cases)


def _recorded(conversation: Conversation) -> list[CassetteTurn]:
    turns = []
    for turn in conversation.turns:
        usage = None
        if turn.input_tokens or turn.output_tokens:
            usage = CassetteUsage(
                prompt_tokens=turn.input_tokens,
                completion_tokens=turn.output_tokens,
                total_tokens=turn.input_tokens + turn.output_tokens,
            )
        turns.append(
            CassetteTurn(
                input=turn.input,
                response=turn.answer,
                tool_calls=[_tool_call(call) for call in turn.tools],
                token_usage=usage,
                error=turn.error if turn.answer is None else None,
            )
        )
    return turns


def _tool_call(call: ToolCall) -> CassetteToolCall:
    return CassetteToolCall(
        name=call.called,
        args=call.args,
        result=call.result,
        error=call.error,
        raw_arguments=call.raw_arguments,
    )
