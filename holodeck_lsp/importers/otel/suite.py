"""Conversations as a suite: agent.yaml with one test case per conversation (its user turns,
its tool calls as expected tools with literal arguments, its answers as ground truth; the
source comment above each case, checker/import_source.py); the cassette replaying the recorded
answers is made from the same conversations by commands/import_/otel_cassette.py (importers
do not import the run core; docs/importing-otel.md).

Pure: returns the text; commands/import_/otel.py writes it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from holodeck_lsp.checker.import_source import source_comment
from holodeck_lsp.importers.otel.conversations import Conversation, ToolCall
from holodeck_lsp.schema.providers import GENAI_PROVIDER_NAMES, Provider

DATASET = "otel"
CASSETTE = "cassettes/recorded.json"
#: The conventions' provider names as agent.yaml's `provider:` values.
_PROVIDERS = {name: provider.value for provider, name in GENAI_PROVIDER_NAMES.items()}
#: What the backends put before a tool's own name: Semantic Kernel's function-tool plugin
#: (`tools-`) and Claude Code's MCP prefix (`mcp__<server>__`).
_PREFIX = re.compile(r"^(?:mcp__[^_]+(?:_[^_]+)*__|tools-)")


@dataclass(frozen=True, slots=True)
class ImportedSuite:
    #: agent.yaml's text (the cassette is the command's to write: commands/import_/otel.py).
    agent: str
    #: The conversations, in the order of their cases, and each case's name.
    conversations: list[Conversation]
    case_names: list[str]
    #: `provider:name` of the recording.
    model: str
    cases: int
    turns: int


def build_suite(conversations: list[Conversation], name: str, source: str) -> ImportedSuite:
    first = conversations[0]
    provider = _PROVIDERS.get(first.provider or "", Provider.OPENAI.value)
    model = first.model or "unknown-model"
    lines = [
        f"# Imported by `holodeck-lsp import otel` from {source}: the recorded answers replay",
        f"# from {CASSETTE} (holodeck-lsp run . --replay {CASSETTE}); loosen the literal",
        "# expected tool arguments and ground truths where the agent may vary.",
        f"name: {json.dumps(name)}",
        f"model: {{provider: {provider}, name: {json.dumps(model)}}}",
        'instructions: {inline: "The instructions of the agent that was recorded."}',
        "test_cases:",
    ]
    case_names: list[str] = []
    names: set[str] = set()
    for conversation in conversations:
        case_name = _unique(_case_name(conversation), names)
        detail = f"service {conversation.service}" if conversation.service else "no service"
        lines.append("  " + source_comment(DATASET, conversation.key, detail))
        lines.append(f"  - name: {json.dumps(case_name)}")
        lines.append("    turns:")
        for turn in conversation.turns:
            lines.append(f"      - input: {json.dumps(turn.input, ensure_ascii=False)}")
            if turn.answer is not None:
                lines.append(f"        ground_truth: {json.dumps(turn.answer, ensure_ascii=False)}")
            if turn.tools:
                lines.append("        expected_tools:")
                lines += [f"          - {_expected(call)}" for call in turn.tools]
        case_names.append(case_name)
    return ImportedSuite(
        agent="\n".join(lines) + "\n",
        conversations=conversations,
        case_names=case_names,
        model=f"{provider}:{model}",
        cases=len(conversations),
        turns=sum(len(conversation.turns) for conversation in conversations),
    )


def tool_name(called: str) -> str:
    """The agent's tool name in a called name (`tools-subtract` → `subtract`)."""
    return _PREFIX.sub("", called) or called


def _expected(call: ToolCall) -> str:
    """A literal matcher: the name, and each argument's recorded value (JSON is YAML)."""
    if not call.args:
        return json.dumps(tool_name(call.called))
    args = json.dumps(call.args, ensure_ascii=False)
    return f"{{name: {json.dumps(tool_name(call.called))}, args: {args}}}"


def _case_name(conversation: Conversation) -> str:
    stem = conversation.agent or conversation.service or "conversation"
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", stem).strip("-") or "conversation"
    return f"{stem}-{conversation.key[:8]}"


def _unique(name: str, taken: set[str]) -> str:
    candidate, number = name, 2
    while candidate in taken:
        candidate, number = f"{name}-{number}", number + 1
    taken.add(candidate)
    return candidate
