"""Re-grade on edit: how soon an edited case's results are back in the editor, graded again from
a recorded transcript (no model called).

Starts `holodeck-lsp` over stdio (trusted, with a `cassettePath`), opens a ConvFinQA yardstick
file and changes one case's `ground_truth` per edit (alternately wrong and right, on a
different case each time). For each edit it times, from the `didChange` notification:

- `checked`: the checker's publishDiagnostics for the new version (debounce included);
- `re-graded`: the `holodeck/runResult` notification with `"regraded": true` for that case;
- `published`: the publishDiagnostics that carries the re-graded result (its `holodeck-run`
  items present after a wrong answer, gone after a right one).

`re-graded − checked` is the re-grade itself. The cassette answers every turn with its ground
truth and the expected tools' calls, written by this script from the agent file (so the right
answers pass, the wrong ones fail at the `ground_truth` line).

Target (issue "Language server"): the re-graded result within 100 ms of the edit on the
100-dialogue file — read it as edit → `published` p95 (which includes the 50 ms debounce and
the check), and the re-grade itself well inside it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from queue import Empty, Queue
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.lsp_latency import DEFAULT_SHARED, OUT, generate, holodeck_command  # noqa: E402

TARGET_MS = 100.0


class StdioClient:
    """A minimal JSON-RPC client over a server's stdin/stdout; messages are read by a thread
    and time-stamped when they arrive."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.inbox: Queue[tuple[float, dict[str, Any]]] = Queue()
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            message = json.loads(stream.read(length))
            self.inbox.put((time.perf_counter(), message))

    def send(self, message: dict[str, Any]) -> float:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stdin.flush()
        return time.perf_counter()

    def request(self, method: str, params: Any) -> Any:
        self._next_id += 1
        self.send({"id": self._next_id, "method": method, "params": params})
        while True:
            _, message = self.receive(30.0)
            if message.get("id") == self._next_id and "method" not in message:
                return message.get("result")
            self.answer(message)

    def notify(self, method: str, params: Any) -> float:
        return self.send({"method": method, "params": params})

    def receive(self, timeout: float) -> tuple[float, dict[str, Any]]:
        try:
            return self.inbox.get(timeout=timeout)
        except Empty:
            raise TimeoutError("the server said nothing") from None

    def answer(self, message: dict[str, Any]) -> None:
        """Answer the server's own requests (configuration, progress, refreshes)."""
        if "id" in message and "method" in message:
            result: Any = None
            if message["method"] == "workspace/configuration":
                result = [None for _ in message["params"]["items"]]
            self.send({"id": message["id"], "result": result})

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.process.wait(5)
        except Exception:
            self.process.kill()


def cassette_for(agent_file: Path) -> dict[str, Any]:
    """Every turn answered with its ground truth and its expected tools' calls."""
    from holodeck_lsp.checker.loader import load_agent_file

    agent = load_agent_file(agent_file).agent
    assert agent is not None and agent.test_cases, f"{agent_file} does not load"
    cases = []
    for index, case in enumerate(agent.test_cases):
        turns = []
        for turn in case.turns or []:
            calls = []
            for tool in turn.expected_tools or []:
                name = tool if isinstance(tool, str) else tool.name
                args = {} if isinstance(tool, str) else dict(tool.args or {})
                plain = {key: getattr(value, "pattern", value) for key, value in args.items()}
                calls.append({"name": name, "args": plain, "result": None, "error": None})
            turns.append(
                {
                    "input": turn.input,
                    "response": turn.ground_truth,
                    "tool_calls": calls,
                    "token_usage": None,
                    "error": None,
                    "duration_ms": 0,
                }
            )
        cases.append({"name": case.name, "index": index, "turns": turns})
    return {"format": "holodeck-cassette", "version": 1, "agent": agent.name, "cases": cases}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def measure(agent_file: Path, edits: int) -> dict[str, list[float]]:
    cassette = agent_file.with_name("regrade.cassette.json")
    cassette.write_text(json.dumps(cassette_for(agent_file)), encoding="utf-8")
    text = agent_file.read_text(encoding="utf-8")
    truths = list(re.finditer(r'^( +)ground_truth: "([^"\n]*)"$', text, re.M))
    suite_start = text.index("\ntest_cases:\n")
    case_starts = [m.start() for m in re.finditer(r"^  - name: ", text, re.M)]
    case_starts = [start for start in case_starts if start > suite_start]
    client = StdioClient(holodeck_command())
    document = agent_file.resolve().as_uri()
    timings: dict[str, list[float]] = {"checked": [], "re-graded": [], "published": []}
    try:
        client.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": agent_file.parent.resolve().as_uri(),
                "capabilities": {},
                "initializationOptions": {"trusted": True, "cassettePath": cassette.name},
            },
        )
        client.notify("initialized", {})
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": document, "languageId": "yaml", "version": 1, "text": text}},
        )
        wait_for(client, lambda m: m.get("method") == "textDocument/publishDiagnostics")
        # Spread the edits over the file: a ground truth made wrong, then right again.
        pattern = re.compile(r'^( +)ground_truth: "([^"\n]*)"$', re.M)
        step = max(1, len(truths) // max(1, (edits + 1) // 2))
        originals = [m.group(2) for m in truths]
        current = text
        for number in range(edits):
            which = (number // 2 * step) % len(originals)
            truth = list(pattern.finditer(current))[which]
            case_index = sum(1 for start in case_starts if start < truth.start()) - 1
            wrong = number % 2 == 0
            value = ("9" if wrong else "") + originals[which]  # 60.94 -> 960.94
            line = f'{truth.group(1)}ground_truth: "{value}"'
            current = current[: truth.start()] + line + current[truth.end() :]
            version = number + 2
            started = client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": document, "version": version},
                    "contentChanges": [{"text": current}],
                },
            )
            checked = wait_for(
                client,
                lambda m, version=version: (
                    m.get("method") == "textDocument/publishDiagnostics"
                    and m["params"].get("version") == version
                ),
            )
            regraded = wait_for(
                client,
                lambda m, case_index=case_index: (
                    m.get("method") == "holodeck/runResult"
                    and m["params"]["regraded"]
                    and m["params"]["caseIndex"] == case_index
                ),
            )

            edited_line = current.count("\n", 0, truth.start())

            def carries_result(
                message: dict[str, Any], wrong: bool = wrong, line: int = edited_line
            ) -> bool:
                """The publish with the edited line's `holodeck-run` item (wrong answer) or
                without it (right answer again)."""
                if message.get("method") != "textDocument/publishDiagnostics":
                    return False
                at_line = [
                    d
                    for d in message["params"]["diagnostics"]
                    if d.get("source") == "holodeck-run" and d["range"]["start"]["line"] == line
                ]
                return bool(at_line) == wrong

            published = wait_for(client, carries_result, since=regraded)
            timings["checked"].append((checked - started) * 1000)
            timings["re-graded"].append((regraded - started) * 1000)
            timings["published"].append((published - started) * 1000)
            time.sleep(0.15)  # let the server settle (not timed)
    finally:
        client.close()
    return timings


def wait_for(client: StdioClient, accept: Any, since: float = 0.0, timeout: float = 10.0) -> float:
    """The arrival time of the first message `accept`s (messages that arrived before `since`
    included: they were queued in order)."""
    deadline = time.perf_counter() + timeout
    while True:
        arrived, message = client.receive(max(0.01, deadline - time.perf_counter()))
        client.answer(message)
        if accept(message):
            return arrived


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--out", type=Path, default=OUT / "regrade_latency")
    parser.add_argument("--cases", type=int, nargs="+", default=[100])
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--no-fail", action="store_true")
    args = parser.parse_args()
    print(
        f"# machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}"
    )
    print(f"# date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    failed = False
    print("| file | edits | measure | p50 ms | p95 ms | max ms |")
    print("|---|---:|---|---:|---:|---:|")
    for cases in args.cases:
        agent_file = generate(args.shared, args.out, cases)
        timings = measure(agent_file, args.edits)
        for name, values in timings.items():
            print(
                f"| {cases} cases | {len(values)} | edit → {name} | "
                f"{statistics.median(values):.1f} | {percentile(values, 0.95):.1f} | "
                f"{max(values):.1f} |"
            )
        regrade_only = [
            r - c for r, c in zip(timings["re-graded"], timings["checked"], strict=True)
        ]
        print(
            f"| {cases} cases | {len(regrade_only)} | re-grade itself (re-graded − checked) | "
            f"{statistics.median(regrade_only):.1f} | {percentile(regrade_only, 0.95):.1f} | "
            f"{max(regrade_only):.1f} |"
        )
        if cases <= 100:
            p95 = percentile(timings["published"], 0.95)
            verdict = "PASS" if p95 <= TARGET_MS else "FAIL"
            failed |= verdict == "FAIL"
            print(
                f"\n{cases} cases: edit → re-graded publish p95 {p95:.1f} ms "
                f"(target ≤ {TARGET_MS:.0f} ms): {verdict}\n"
            )
    return 1 if failed and not args.no_fail else 0


if __name__ == "__main__":
    sys.exit(main())
