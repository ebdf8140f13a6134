"""What `holodeck-lsp serve` imports before it can answer `initialize`, read with
`python -X importtime` in a fresh interpreter: none of the heavy libraries (they load when a
feature first needs them — the checker in a background thread after the handshake, an SDK when
a run starts), and our own modules a small share of the start next to pygls's protocol types,
which are the floor (docs/benchmarks.md, "Cold start").

A ratio, not milliseconds: the machine's load moves both sides alike, so the budget holds on a
busy CI runner and a quiet laptop, and a module that starts importing pydantic or doing work
at import time shows up as a broken ratio."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

#: Libraries the start-up must not import (each costs 40 ms to seconds).
HEAVY = (
    "pydantic",
    "ruamel",
    "semantic_kernel",
    "claude_agent_sdk",
    "deepeval",
    "openai",
    "anthropic",
    "httpx",
    "mcp",
    "numpy",
)
#: Our modules' own import time, at most this share of `import lsprotocol.types`.
OUR_SHARE = 0.5

STARTUP = (
    "import gc; gc.disable()\n"  # as commands/serve.py does before importing the server
    "from holodeck_lsp.commands.serve import main\n"
    "from holodeck_lsp.server.app import create_server\n"
    "create_server()\n"
)


@dataclass(frozen=True, slots=True)
class Imported:
    name: str
    self_us: int
    cumulative_us: int


def startup_imports() -> list[Imported]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", STARTUP],
        capture_output=True,
        text=True,
        check=True,
    )
    found = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, cumulative, name = line.removeprefix("import time:").split("|")
        found.append(Imported(name.strip(), int(own), int(cumulative)))
    return found


def test_the_server_starts_without_the_heavy_libraries() -> None:
    names = {item.name for item in startup_imports()}
    assert "lsprotocol.types" in names  # the reading works
    loaded = sorted(name for name in names if name.split(".")[0] in HEAVY)
    assert loaded == [], f"imported at start-up: {loaded}"


def test_our_modules_are_a_small_share_of_the_start() -> None:
    # The best of three: one measurement can land on a burst of load on one side only.
    shares = []
    for _ in range(3):
        imported = startup_imports()
        ours = sum(item.self_us for item in imported if item.name.startswith("holodeck_lsp"))
        protocol = next(item.cumulative_us for item in imported if item.name == "lsprotocol.types")
        shares.append(ours / protocol)
    assert min(shares) <= OUR_SHARE, f"our modules took {min(shares):.0%} of lsprotocol.types"


def test_the_early_initialize_answer_imports_no_protocol_library() -> None:
    """What runs before a cached initialize answer is written (cli → serve → early_handshake):
    the standard library and a few of our leaf modules — not pygls, not lsprotocol."""
    script = (
        "import sys\n"
        "import holodeck_lsp.cli, holodeck_lsp.commands.serve\n"
        "import holodeck_lsp.server.early_handshake\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.split()
    assert "holodeck_lsp.server.early_handshake" in loaded
    heavy = [name for name in loaded if name.split(".")[0] in (*HEAVY, "pygls", "lsprotocol")]
    assert heavy == []
