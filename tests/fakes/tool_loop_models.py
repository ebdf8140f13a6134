"""Models that behave as real ones do in a tool loop, for the fake OpenAI and Anthropic servers
(docs/running.md, "Tool loop"), and the suite they are tested with.

Each fake answers from the request itself (its `responder`): the turn is found by the user's
input in the conversation, the round by the assistant messages since it. So a model that
"wants 25 rounds" keeps calling tools for as long as the client offers them, whatever limit
the client applies, and a test never depends on how many requests a backend makes.

The suite: `long-loop` asks for 25 files (one `touch` call per round), then says thanks (the
session goes on after a stopped turn); `odd-calls` gets, in one step with text, a name that is
no tool (a format token leaked into it), arguments that are not JSON, a mistyped argument and
one good call; then a turn whose only call is not JSON; then a turn answered with no call
where one was needed. A code grader returns what it saw of each call, so a test can check
that graders see what the model sent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tests.fakes import anthropic_server, openai_server

LONG_LOOP = "Touch 25 files."
THANKS = "Thanks."
TICKET_7 = "What is the status of ticket 7?"
TICKET_9 = "And ticket 9?"
TICKET_8 = "And ticket 8?"
INPUTS = (LONG_LOOP, THANKS, TICKET_7, TICKET_9, TICKET_8)
#: Rounds the looping model wants in one turn (more than the default limit of 20).
WANTED_ROUNDS = 25
#: The name a model sends when a format token leaks into it.
LEAKED_NAME = "ls<|channel|>commentary"
NOT_JSON_7 = '{"ticket_id": 7'
NOT_JSON_9 = '{"ticket_id": 9'

TOOLS_PY = '''\
def lookup_ticket(ticket_id: int) -> str:
    """The status of a ticket."""
    return f"ticket {ticket_id} is open"


def touch(path: str) -> str:
    """Create an empty file."""
    return f"touched {path}"
'''

GRADERS_PY = '''\
from types import SimpleNamespace


def sent_as_is(ctx):
    """What the grader sees of each call: name, the text sent, the problem, the error."""
    calls = [
        [call.name, call.raw_arguments, call.call_problem, call.error is not None]
        for call in ctx.tool_invocations
    ]
    return SimpleNamespace(score=1.0, passed=True, reason=None, details={"calls": calls})
'''

SUITE = f"""\
tools:
  - {{name: lookup_ticket, type: function, description: "a ticket's status", file: tools.py,
      function: lookup_ticket}}
  - {{name: touch, type: function, description: "create a file", file: tools.py,
      function: touch}}
evaluations:
  metrics:
    - {{type: code, grader: "graders:sent_as_is"}}
test_cases:
  - name: long-loop
    turns:
      - input: "{LONG_LOOP}"
        expected_tools: [touch]
      - input: "{THANKS}"
  - name: odd-calls
    turns:
      - input: "{TICKET_7}"
        expected_tools:
          - {{name: lookup_ticket, args: {{ticket_id: 7}}}}
      - input: "{TICKET_9}"
        expected_tools:
          - {{name: lookup_ticket, args: {{ticket_id: 9}}}}
      - input: "{TICKET_8}"
        expected_tools:
          - {{name: lookup_ticket, args: {{ticket_id: 8}}}}
"""


def write_suite(folder: Path, model: str, extra: str = "") -> Path:
    """agent.yaml (with `model`, a YAML flow mapping), tools.py and graders.py in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tools.py").write_text(TOOLS_PY, encoding="utf-8")
    (folder / "graders.py").write_text(GRADERS_PY, encoding="utf-8")
    path = folder / "agent.yaml"
    text = f'name: tool-loop\nmodel: {model}\ninstructions: {{inline: "Use the tools."}}\n'
    path.write_text(text + extra + SUITE, encoding="utf-8")
    return path


# -- what the model does ----------------------------------------------------------------------


def _turn_and_round(messages: Sequence[dict[str, Any]]) -> tuple[str, int]:
    """The input of the turn being answered and how many rounds it has had."""
    for position in range(len(messages) - 1, -1, -1):
        message = messages[position]
        if message.get("role") != "user":
            continue
        text = _text_of(message.get("content"))
        found = [item for item in INPUTS if item in text]
        if found:
            rounds = sum(1 for m in messages[position + 1 :] if m.get("role") == "assistant")
            return found[0], rounds
    raise AssertionError(f"no known input in the conversation: {messages!r}")


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(block.get("text", "")) for block in content if isinstance(block, dict))
    return ""


#: (name, arguments as an object, or None with the raw text) per call; `tool` names the tools.
Call = tuple[str, dict[str, Any] | None, str | None]


def _plan(
    turn: str, round_: int, offered: bool, tool: Callable[[str], str]
) -> tuple[str | None, list[Call]]:
    """(text, calls) the model answers at this round of this turn."""
    if turn == LONG_LOOP:
        if offered and round_ < WANTED_ROUNDS:
            return None, [(tool("touch"), {"path": f"file-{round_}"}, None)]
        return f"Touched {round_} files.", []
    if turn == TICKET_7 and round_ == 0:
        return "Let me look that up.", [
            (LEAKED_NAME, {"path": "."}, None),
            (tool("lookup_ticket"), None, NOT_JSON_7),
            (tool("lookup_ticket"), {"ticket_id": "seven"}, None),
            (tool("lookup_ticket"), {"ticket_id": 7}, None),
        ]
    if turn == TICKET_9 and round_ == 0:
        return None, [(tool("lookup_ticket"), None, NOT_JSON_9)]
    answers = {
        THANKS: "You're welcome.",
        TICKET_7: "Ticket 7 is open.",
        TICKET_9: "Ticket 9 is open.",
        TICKET_8: "Ticket 8 is closed.",  # no call where one was needed
    }
    return answers[turn], []


def openai_responder(body: dict[str, Any]) -> openai_server.Reply:
    """The model on the chat-completions wire (Semantic Kernel names tools `tools-<name>`)."""
    turn, round_ = _turn_and_round(body.get("messages") or [])
    text, calls = _plan(turn, round_, bool(body.get("tools")), lambda name: f"tools-{name}")
    return openai_server.Reply(
        text=text,
        tool_calls=[
            openai_server.ToolCall(name, raw if args is None else args) for name, args, raw in calls
        ],
    )


def anthropic_responder(body: dict[str, Any]) -> anthropic_server.Reply:
    """The model on the Messages wire (the Claude CLI names them `mcp__tools__<name>`)."""
    turn, round_ = _turn_and_round(body.get("messages") or [])
    text, calls = _plan(turn, round_, bool(body.get("tools")), lambda name: f"mcp__tools__{name}")
    return anthropic_server.Reply(
        text=text,
        tool_uses=[
            anthropic_server.ToolUse(name, args or {}, raw_input=raw) for name, args, raw in calls
        ],
    )
