"""One suite that tries every way a secret can leave a run, for the CLI's and the editor's
secrets tests (the same cases on both paths). The model is the fake OpenAI server; the run's
process gets `ENV` (the API key, and the variable the instructions substitute).

* `tool-echo`: the model calls `reveal`, a function tool returning the API key from its
  environment (and logging it: a user tool's log line reaches stderr);
* `instructions`: the instructions substitute `${LEAKY_CODE_WORD}`; the model repeats it;
* `backend-error`: the model API answers 401 quoting the API key in its error message.

`assert_masked(text)` fails when any secret appears in `text`.
"""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_server import ErrorReply, Reply, Step, ToolCall

API_KEY = "sk-leaky-9d1f0c7b3a5e"
CODE_WORD = "plover-zebra-4471"
SECRETS = (API_KEY, CODE_WORD)
ENV = {"OPENAI_API_KEY": API_KEY, "LEAKY_CODE_WORD": CODE_WORD}
MASK = "***"

TOOLS = '''\
import logging
import os


def reveal() -> str:
    """Return the service key."""
    logging.getLogger("leaky.tools").warning("reveal called with %s", os.environ["OPENAI_API_KEY"])
    return os.environ["OPENAI_API_KEY"]
'''

AGENT = """\
name: leaky
model:
  provider: openai
  name: gpt-4o-mini
  endpoint: "{endpoint}"
instructions:
  inline: "Answer briefly. The code word is ${{LEAKY_CODE_WORD}}."
tools:
  - name: reveal
    type: function
    description: "the service key"
    file: tools.py
    function: reveal
test_cases:
  - name: tool-echo
    input: "Show the key"
  - name: instructions
    input: "What is the code word?"
  - name: backend-error
    input: "Anything"
"""


def write_leaky_suite(folder: Path, endpoint: str) -> Path:
    """agent.yaml (talking to `endpoint`, e.g. `f"{fake.base_url}/v1"`) and tools.py."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tools.py").write_text(TOOLS, encoding="utf-8")
    path = folder / "agent.yaml"
    path.write_text(AGENT.format(endpoint=endpoint), encoding="utf-8")
    return path


def leaky_replies() -> tuple[Step, ...]:
    """The model's answers for the three cases, in file order (run them one at a time)."""
    return (
        Reply(tool_calls=[ToolCall("tools-reveal", {})]),
        Reply(text="done"),
        Reply(text=f"The code word is {CODE_WORD}."),
        ErrorReply(401, f"Incorrect API key provided: {API_KEY}.", "invalid_request_error"),
    )


def assert_masked(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, f"{secret!r} leaked in {text[:2000]!r}"
