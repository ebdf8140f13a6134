"""A backend that is down stops the run before the first turn (runner/backends/preflight.py),
through the real console script: a closed port, a port that accepts and never answers (bounded), and
a server that answers the check but drops every chat request (every turn fails: exit 3)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from holodeck_lsp.runner.backends.preflight import probe

# The console script as a process per test: run by CI and by `pytest FILE`, not the loop.
pytestmark = pytest.mark.slow

SCRIPT = Path(sys.executable).with_name("holodeck-lsp")

AGENT = """\
name: demo
model:
  provider: ollama
  name: llama3.2
instructions: {inline: "Answer briefly."}
test_cases:
  - {name: one, input: "q1", ground_truth: "a"}
  - {name: two, input: "q2", ground_truth: "b"}
"""


@pytest.fixture(autouse=True)
def _preflight_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOLODECK_PREFLIGHT", raising=False)
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


def closed_port() -> int:
    with socket.socket() as probe_socket:
        probe_socket.bind(("127.0.0.1", 0))
        return int(probe_socket.getsockname()[1])


@pytest.fixture
def hanging_port() -> Iterator[int]:
    """Accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield int(server.getsockname()[1])
    stop.set()
    thread.join(timeout=5)
    for connection in accepted:
        connection.close()
    server.close()


def run(
    tmp_path: Path, env: dict[str, str], agent: str = AGENT
) -> tuple[subprocess.CompletedProcess[str], float]:
    if not SCRIPT.exists():
        pytest.skip("holodeck-lsp is not installed in this environment")
    (tmp_path / "agent.yaml").write_text(agent, encoding="utf-8")
    started = time.monotonic()
    done = subprocess.run(
        [str(SCRIPT), "run", "agent.yaml"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
        env={**os.environ, **env},
    )
    return done, time.monotonic() - started


def test_a_closed_port_stops_the_run_with_exit_3(tmp_path: Path) -> None:
    port = closed_port()
    done, _ = run(tmp_path, {"OLLAMA_HOST": f"127.0.0.1:{port}"})
    assert done.returncode == 3, done.stderr
    assert (
        f"cannot reach Ollama at http://127.0.0.1:{port} (connection refused) — is it running "
        "(`ollama serve`)? set OLLAMA_HOST or `model.endpoint`; nothing was run"
    ) in done.stderr
    assert "passed" not in done.stdout  # no turn was sent, no summary of wrong answers


def test_the_endpoint_is_named_as_configured_path_included(tmp_path: Path) -> None:
    """`…/v1` as the user wrote it (the SDK is given it too), without the credentials a URL
    may carry (`user:password@`, the query)."""
    port = closed_port()
    endpoint = f"http://probe:pw-5e1d9c@127.0.0.1:{port}/v1?api-key=k-7a2b"
    agent = AGENT.replace(
        "  provider: ollama\n  name: llama3.2\n",
        f"  provider: openai\n  name: gpt-4o-mini\n  endpoint: {endpoint}\n",
    )
    done, _ = run(tmp_path, {"OPENAI_API_KEY": "sk-preflight-3c9f"}, agent)
    assert done.returncode == 3, done.stderr
    assert (
        f"cannot reach the OpenAI API at http://127.0.0.1:{port}/v1 (connection refused)"
    ) in done.stderr
    for secret in ("pw-5e1d9c", "k-7a2b", "sk-preflight-3c9f"):
        assert secret not in done.stderr + done.stdout


def test_a_port_that_accepts_and_hangs_is_bounded(tmp_path: Path, hanging_port: int) -> None:
    done, elapsed = run(
        tmp_path,
        {"OLLAMA_HOST": f"127.0.0.1:{hanging_port}", "HOLODECK_PREFLIGHT_TIMEOUT": "1"},
    )
    assert done.returncode == 3, done.stderr
    assert "(no answer within 1s)" in done.stderr
    assert elapsed < 15


def test_probe_counts_any_http_answer_as_reachable() -> None:
    class NotFound(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), NotFound)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        assert probe(f"http://127.0.0.1:{server.server_address[1]}/v1", 5) is None
    finally:
        server.shutdown()
        server.server_close()
    assert probe(f"http://127.0.0.1:{closed_port()}", 5) == "connection refused"


@pytest.mark.slow
def test_every_turn_failing_to_connect_exits_3_and_the_summary_says_so(tmp_path: Path) -> None:
    class DropsChats(BaseHTTPRequestHandler):
        """Answers the preflight's GET; closes the connection on every chat POST."""

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), DropsChats)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        # No retries: every send fails the same way, and backing off between the retries of
        # a dropped connection (runner/limits/) would only make the test take minutes.
        done, _ = run(
            tmp_path,
            {
                "OLLAMA_HOST": f"127.0.0.1:{server.server_address[1]}",
                "HOLODECK_RETRY_BUDGET": "0",
            },
        )
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 3, done.stdout + done.stderr
    # The provider, not the agent: the turns are errored, not failed (docs/running.md, Long runs).
    assert "0 passed, 0 failed, 2 errored of 2 test cases" in done.stdout
    assert "the backend is down: every turn failed to reach the model's server (2 of 2" in (
        done.stdout
    )


def test_a_missing_api_key_is_left_to_the_backend_to_report(tmp_path: Path) -> None:
    from holodeck_lsp.checker.loader import LoadOptions, load_agent_file
    from holodeck_lsp.runner.backends.preflight import BackendUnreachable, check_endpoint

    port = closed_port()
    text = AGENT.replace(
        "  provider: ollama\n  name: llama3.2\n",
        f"  provider: openai\n  name: gpt-4o-mini\n  endpoint: http://127.0.0.1:{port}/v1\n",
    )
    (tmp_path / "agent.yaml").write_text(text, encoding="utf-8")
    agent = load_agent_file(tmp_path / "agent.yaml", options=LoadOptions(env={})).agent
    assert agent is not None
    check_endpoint(agent, {})  # no key: the backend's "needs an API key" comes first
    with pytest.raises(BackendUnreachable, match="cannot reach the OpenAI API"):
        check_endpoint(agent, {"OPENAI_API_KEY": "sk-test"})


def test_several_agents_run_in_turn_and_the_worst_status_wins(tmp_path: Path) -> None:
    if not SCRIPT.exists():
        pytest.skip("holodeck-lsp is not installed in this environment")
    for name in ("a.agent.yaml", "b.agent.yaml"):
        (tmp_path / name).write_text(AGENT, encoding="utf-8")
    env = {**os.environ, "OLLAMA_HOST": f"127.0.0.1:{closed_port()}"}

    def run_here(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(SCRIPT), "run", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
            check=False,
            env=env,
        )

    done = run_here(".")
    assert done.returncode == 3
    assert done.stdout.count("running ") == 2  # one first line per agent
    assert done.stderr.count("cannot reach Ollama") == 2
    refused = run_here("a.agent.yaml", "b.agent.yaml", "--case", "first")
    assert refused.returncode == 2
    assert "2 agent files found; --case only work with one agent file: name it" in refused.stderr
