"""Kate (Debian's 22.12) as a real LSP client, configured with the Kate block of
docs/editors/README.md ("Other editors"): Kate runs under its own Xvfb with HOME and
XDG_CONFIG_HOME in tmp_path, the block as its `kate/lspclient/settings.json`, and a copy of
sample/financial-assistant's agent.yaml opened. The block's command runs through lsp_relay.py,
which records the conversation; keys are typed and the mouse moved with xdotool, as a user
would. From the traffic: Kate starts our server for the YAML file (initialize, with the client
capabilities the docs list for Kate, and didOpen), the clean file gets empty diagnostics, a
typo typed into `provider:` gets HD103 published and undoing it clears it, resting the mouse on
a key shows our hover, and Ctrl+Space under an argument offers the matcher kinds."""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest

from tests.editors.test_neovim import SAMPLE, _missing, key_at, turn_spans
from tests.server.lsp_client import installed_server

pytestmark = pytest.mark.slow  # a real Kate, X server and language server

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "editors" / "README.md"
RELAY = Path(__file__).with_name("lsp_relay.py")
FIRST_LINE = '{"servers": {"yaml": {'
TIMEOUT = 45.0  # for each step; the whole test took 30-50 s on the loaded 2-core machine


def tools() -> dict[str, str]:
    found = {name: shutil.which(name) for name in ("kate", "Xvfb", "xdotool")}
    missing = [name for name, path in found.items() if path is None]
    if missing:
        _missing(f"{', '.join(missing)} not installed: apt-get install -y kate xvfb xdotool")
    return {name: str(path) for name, path in found.items()}


def kate_block() -> dict[str, Any]:
    """The Kate block of the page: JSON for *User Server Settings* / settings.json."""
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    found = [block for block in blocks if block.lstrip().startswith(FIRST_LINE)]
    assert len(found) == 1, f"{DOC}: no single ```json block starting {FIRST_LINE!r}"
    settings: dict[str, Any] = json.loads("\n".join(line.strip() for line in found[0].splitlines()))
    return settings


def start_xvfb(xvfb: str, xdotool: str, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """An X server on a free display (it writes the number it took to -displayfd)."""
    read, write = os.pipe()
    with log.open("wb") as errors:
        server = subprocess.Popen(
            [xvfb, "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
            pass_fds=(write,),
            stdin=subprocess.DEVNULL,
            stdout=errors,
            stderr=errors,
        )
    os.close(write)
    # Read up to the newline: Xvfb writes the number and the newline apart, and stops with
    # "Cannot write display number" should the pipe be closed between them.
    written = b""
    deadline = time.monotonic() + TIMEOUT
    try:
        while not written.endswith(b"\n") and time.monotonic() < deadline:
            ready, _, _ = select.select([read], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(read, 64) if ready else b""
            if not chunk:
                break
            written += chunk
    finally:
        os.close(read)
    number = written.decode().strip()
    # Ready when a client gets through.
    deadline = time.monotonic() + TIMEOUT
    while number.isdigit() and server.poll() is None and time.monotonic() < deadline:
        probe = subprocess.run(
            [xdotool, "getmouselocation"],
            env={**os.environ, "DISPLAY": f":{number}"},
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )
        if probe.returncode == 0:
            return server, f":{number}"
        time.sleep(0.1)
    stop(server)
    pytest.fail(f"Xvfb is not serving display {number!r}: {log.read_text()!r}")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=3)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def stop_kate(kate: subprocess.Popen[bytes]) -> None:
    """SIGKILL to Kate's whole process group (Kate, the relay, the server, KDE's helpers) at
    once: Kate asks about unsaved changes instead of quitting, and restarts a server that
    goes first; the test has read all it checks by now, so nothing in the group needs to end
    gracefully (left to themselves, the relay and server took about 2 s to go)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(kate.pid, signal.SIGKILL)
    kate.wait()


class Traffic:
    """The relay's log, read as it grows: every message Kate and the server exchanged."""

    def __init__(self, log: Path, agent: Path, diagnostics_hint: Callable[[], str]) -> None:
        self.log = log
        self.agent = agent
        self.hint = diagnostics_hint

    def messages(self) -> list[tuple[str, dict[str, Any]]]:
        if not self.log.exists():
            return []
        found = []
        for line in self.log.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:  # being written
                continue
            found.append((entry["from"], entry["message"]))
        return found

    def wait(self, what: str, match: Callable[[list[tuple[str, dict[str, Any]]]], Any]) -> Any:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            found = match(self.messages())
            if found:
                return found
            time.sleep(0.1)
        seen = [m.get("method", f"answer {m.get('id')}") for _, m in self.messages()]
        pytest.fail(f"no {what} within {TIMEOUT} s; traffic: {seen}\n{self.hint()}")

    def is_agent(self, uri: str) -> bool:
        return Path(unquote(urlparse(uri).path)).resolve() == self.agent.resolve()

    def published(self, after: int = -1) -> list[dict[str, Any]]:
        """publishDiagnostics params for the agent file, of document versions above `after`."""
        return [
            m["params"]
            for sender, m in self.messages()
            if sender == "server"
            and m.get("method") == "textDocument/publishDiagnostics"
            and self.is_agent(m["params"]["uri"])
            and (m["params"].get("version") or 0) > after
        ]

    def answers(self, method: str) -> list[tuple[dict[str, Any], Any]]:
        """(params, result) of each `method` request Kate sent that the server answered."""
        messages = self.messages()
        requests = {
            m["id"]: m["params"]
            for sender, m in messages
            if sender == "client" and m.get("method") == method
        }
        return [
            (requests[m["id"]], m.get("result"))
            for sender, m in messages
            if sender == "server" and "method" not in m and m.get("id") in requests
        ]

    def last_version(self) -> int:
        versions = [
            m["params"]["textDocument"]["version"]
            for sender, m in self.messages()
            if sender == "client"
            and m.get("method") in {"textDocument/didOpen", "textDocument/didChange"}
        ]
        return max(versions, default=0)


def copy_sample(tmp_path: Path) -> Path:
    """A copy of sample/financial-assistant under tmp_path; its agent.yaml."""
    suite = tmp_path / "financial-assistant"
    shutil.copytree(SAMPLE, suite, ignore=shutil.ignore_patterns("__pycache__", ".holodeck"))
    return suite / "agent.yaml"


class Kate:
    """A running Kate on its own X display, and what the test sees of it: the relay's
    traffic, its windows, keys and the mouse through xdotool."""

    def __init__(self, tmp_path: Path, binaries: dict[str, str], env: dict[str, str]) -> None:
        self.binaries = binaries
        self.env = env
        self.log = tmp_path / "kate.log"
        self.screenshot = tmp_path / "kate.png"
        self.traffic_log = tmp_path / "lsp-traffic.jsonl"
        self.process: subprocess.Popen[bytes] | None = None
        self.traffic: Traffic  # set by kate_session

    def hint(self) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
        shot = f"screenshot: {self.screenshot}" if self.screenshot.exists() else "no screenshot"
        return f"traffic: {self.traffic_log}; {shot}; Kate's output:\n{text[-2000:]}"

    def xdotool(self, *args: str) -> None:
        subprocess.run([self.binaries["xdotool"], *args], env=self.env, check=True, timeout=TIMEOUT)

    def ask_xdotool(self, *args: str) -> str:
        """xdotool's output (empty when it fails: no such window)."""
        return subprocess.run(
            [self.binaries["xdotool"], *args],
            env=self.env, capture_output=True, text=True, timeout=TIMEOUT, check=False,
        ).stdout  # fmt: skip

    def take_screenshot(self, path: Path | None = None) -> None:
        """A debugging aid, when ImageMagick is there."""
        if shutil.which("import"):
            subprocess.run(
                ["import", "-window", "root", str(path or self.screenshot)],
                env=self.env,
                timeout=TIMEOUT,
                check=False,
            )

    def windows(self) -> list[tuple[int, str, str]]:
        """Kate's visible windows, largest first: (area, id, name)."""
        assert self.process is not None
        found = self.ask_xdotool("search", "--onlyvisible", "--pid", str(self.process.pid))
        listed = []
        for window in found.split():
            described = self.ask_xdotool(
                "getwindowname", window, "getwindowgeometry", "--shell", window
            )
            name, _, shell = described.partition("\n")
            fields = dict(line.split("=", 1) for line in shell.split() if "=" in line)
            area = int(fields.get("WIDTH", 0)) * int(fields.get("HEIGHT", 0))
            listed.append((area, window, name))
        return sorted(listed, reverse=True)

    def focus(self) -> list[tuple[int, str, str]]:
        """Under Xvfb there is no window manager to give Kate the keyboard, and a loaded
        machine may draw the window after the server has the file: wait for Kate's main window
        (its largest), rest the pointer on it and focus it by hand. Kate's windows."""
        seen: list[tuple[int, str, str]] = []
        deadline = time.monotonic() + TIMEOUT
        while not (seen := self.windows()) and time.monotonic() < deadline:
            time.sleep(0.2)
        if seen:
            main = seen[0][1]
            # Over the menu bar: no hover request, and the keyboard follows the pointer
            # should the focus be PointerRoot.
            self.xdotool("mousemove", "--window", main, "60", "8")
            self.xdotool("windowfocus", "--sync", main)
        return seen

    def type_into_kate(self, text: str, version: int, *, keys: bool = False) -> None:
        """Type `text` into Kate's editor (see `focus`) — with `keys`, press the xdotool key
        names it holds (`BackSpace`) —, again only when no keystroke reached the document (no
        didChange after `version`) within a few seconds."""
        seen: list[tuple[int, str, str]] = []
        for _ in range(4):
            if seen := self.focus():
                if keys:
                    self.xdotool("key", "--delay", "50", *text.split())
                else:
                    self.xdotool("type", "--delay", "50", text)
            deadline = time.monotonic() + 8
            while time.monotonic() < deadline:
                if self.traffic.last_version() > version:
                    return
                time.sleep(0.1)
        focused = subprocess.run(
            [self.binaries["xdotool"], "getwindowfocus", "getwindowname"],
            env=self.env, capture_output=True, text=True, timeout=TIMEOUT, check=False,
        )  # fmt: skip
        pytest.fail(
            f"no keystroke reached Kate's document; Kate's windows (area, id, name): {seen}; "
            f"focused: {focused.stdout.strip() or focused.stderr.strip()!r}; {self.hint()}"
        )

    def go_to_line(self, line: int) -> None:
        """Ctrl+G and the 1-based number of the 0-based `line`: the cursor at its start."""
        self.xdotool("key", "ctrl+g")
        self.xdotool("type", "--delay", "30", str(line + 1))
        self.xdotool("key", "Return", "Home", "Home")


@contextlib.contextmanager
def kate_session(
    tmp_path: Path,
    runtime_dir: Path,
    agent: Path,
    *,
    line: int,
    column: int,
    options: dict[str, Any] | None = None,
) -> Iterator[Kate]:
    """Kate on its own Xvfb, configured with the page's Kate block (its command through the
    relay; `initializationOptions` replaced by `options` when given), `agent` opened with the
    cursor at 0-based (`line`, `column`); stopped, with its X server, on leaving."""
    binaries = tools()
    settings = kate_block()
    entry = settings["servers"]["yaml"]
    assert entry["command"][0] == "holodeck-lsp", entry
    if options is not None:
        entry["initializationOptions"] = options
    (tmp_path / "home").mkdir(exist_ok=True)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DBUS_", "XDG_", "WAYLAND", "KDE", "QT_"))
    }
    kate = Kate(tmp_path, binaries, env)
    kate.traffic = Traffic(kate.traffic_log, agent, kate.hint)
    # The page's block, its command run through the relay (Kate starts it with this HOME).
    command = [
        sys.executable,
        str(RELAY),
        str(kate.traffic_log),
        installed_server(),
        *entry["command"][1:],
    ]
    entry["command"] = command
    config = tmp_path / "config"
    (config / "kate" / "lspclient").mkdir(parents=True)
    (config / "kate" / "lspclient" / "settings.json").write_text(json.dumps(settings), "utf-8")
    # Kate 22.12 asks once before it starts a server command line; the answer "Yes" is kept
    # here (the docs say so).
    (config / "katerc").write_text(
        f"[lspclient]\nAllowedServerCommandLines={' '.join(command)}\n", encoding="utf-8"
    )
    xvfb, display = start_xvfb(binaries["Xvfb"], binaries["xdotool"], tmp_path / "xvfb.log")
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(config),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_RUNTIME_DIR=str(runtime_dir),  # mode 0700, as XDG_RUNTIME_DIR must be
        DISPLAY=display,
        QT_QPA_PLATFORM="xcb",
    )
    try:
        # -l / -c are 1-based.
        with kate.log.open("wb") as output:
            kate.process = subprocess.Popen(
                [binaries["kate"], "-n", "-l", str(line + 1), "-c", str(column + 1), agent.name],
                cwd=agent.parent,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=output,
                start_new_session=True,
            )
        try:
            yield kate
        finally:
            stop_kate(kate.process)
    finally:
        stop(xvfb)


def wait_opened(traffic: Traffic) -> list[dict[str, Any]]:
    """The didOpen of the agent file Kate sent (once its server was initialized)."""
    return list(
        traffic.wait(
            "didOpen of agent.yaml",
            lambda ms: [
                m
                for s, m in ms
                if m.get("method") == "textDocument/didOpen"
                and traffic.is_agent(m["params"]["textDocument"]["uri"])
            ],
        )
    )


def test_kate_starts_the_documented_server_and_shows_its_diagnostics(
    tmp_path: Path, runtime_dir: Path
) -> None:
    agent = copy_sample(tmp_path)
    text = agent.read_text(encoding="utf-8")
    lines = text.splitlines()
    provider = next(
        i for i, line in enumerate(lines) if line.startswith("model: {provider: ollama")
    )
    after_ollama = lines[provider].index("ollama") + len("ollama")
    fuzzy_line, fuzzy_column = key_at(lines, "fuzzy", turn_spans(lines)[0][0])
    # The page's block as it is: untrusted.
    assert kate_block()["servers"]["yaml"]["initializationOptions"] == {"trusted": False}

    # The cursor lands right after `ollama`.
    with kate_session(tmp_path, runtime_dir, agent, line=provider, column=after_ollama) as kate:
        traffic, xdotool = kate.traffic, kate.xdotool
        # Kate started our server for the YAML file and opened it: its first check is clean.
        initialize = traffic.wait(
            "initialize",
            lambda ms: next((m for s, m in ms if m.get("method") == "initialize"), None),
        )
        opened = wait_opened(traffic)
        assert opened[0]["params"]["textDocument"]["languageId"] == "yaml", opened
        assert opened[0]["params"]["textDocument"]["text"] == text
        first = traffic.wait("diagnostics of the opened file", lambda ms: traffic.published())
        assert first[0]["diagnostics"] == [], first

        # What Kate 22.12 declares (docs/editors/README.md, "Other editors", Kate): no code
        # lenses (runs are code actions), no inlay hints (run results are diagnostics), no pull
        # diagnostics, no workspace/configuration (settings go in initializationOptions).
        params = initialize["params"]
        capabilities = params["capabilities"]
        (tmp_path / "kate-initialize.json").write_text(json.dumps(params, indent=1), "utf-8")
        document = capabilities["textDocument"]
        assert params["initializationOptions"] == {"trusted": False}, params
        assert "semanticTokens" in document and "codeAction" in document, document
        assert "hover" in document and "publishDiagnostics" in document, document
        for missing in ("codeLens", "inlayHint", "diagnostic", "completion"):
            assert missing not in document, (missing, document)
        assert "configuration" not in capabilities.get("workspace", {}), capabilities
        assert "positionEncodings" not in capabilities.get("general", {}), capabilities
        tokens = traffic.wait(
            "semantic tokens", lambda ms: traffic.answers("textDocument/semanticTokens/full")
        )
        assert tokens[0][1]["data"], tokens

        # A typo in `provider:`, typed: HD103 on its line, then undone: cleared.
        before = traffic.last_version()
        kate.type_into_kate("x", before)
        [fault] = traffic.wait(
            "HD103 for the typed typo",
            lambda ms: [
                d
                for p in traffic.published(after=before)
                for d in p["diagnostics"]
                if d["code"] == "HD103"
            ][:1],
        )
        kate.take_screenshot()
        assert fault["range"]["start"]["line"] == provider, fault
        assert fault["range"]["end"]["character"] == after_ollama + 1, fault
        assert "'ollamax'" in fault["message"] and "did you mean 'ollama'" in fault["message"], (
            fault
        )
        faulty = traffic.last_version()
        xdotool("key", "Escape", "ctrl+z")
        traffic.wait(
            "empty diagnostics after the undo",
            lambda ms: [p for p in traffic.published(after=faulty) if not p["diagnostics"]],
        )

        # Resting the mouse on the text: Kate asks for hover, our answer names the key under it.
        window = kate.ask_xdotool("search", "--name", "agent.yaml", "getwindowgeometry", "--shell")
        geometry = dict(line.split("=", 1) for line in window.split() if "=" in line)
        width, height = int(geometry["WIDTH"]), int(geometry["HEIGHT"])
        x = int(geometry["X"]) + width // 6
        hovered: list[tuple[dict[str, Any], Any]] = []
        for y in range(int(geometry["Y"]) + height // 4, int(geometry["Y"]) + height * 9 // 10, 18):
            asked = len(traffic.answers("textDocument/hover"))
            xdotool("mousemove", str(x), str(y))
            deadline = time.monotonic() + 2
            while (
                time.monotonic() < deadline and len(traffic.answers("textDocument/hover")) == asked
            ):
                time.sleep(0.05)
            hovered = [(p, r) for p, r in traffic.answers("textDocument/hover") if r]
            if hovered:
                break
        assert hovered, f"no hover answered while the mouse crossed the text; {kate.hint()}"
        position, answer = hovered[0][0]["position"], hovered[0][1]
        line = lines[position["line"]]
        words = [
            m.group()
            for m in re.finditer(r"\w+", line)
            if m.start() <= position["character"] <= m.end()
        ]
        assert words and f"`{words[0]}`" in answer["contents"]["value"], (position, line, answer)

        # Ctrl+Space after `fu` typed over a `fuzzy:` key: the matcher kinds.
        kate.go_to_line(fuzzy_line)
        xdotool("key", "End", "shift+Home")
        xdotool("type", "--delay", "50", "fu")
        xdotool("key", "ctrl+space")
        completed = traffic.wait(
            "completion with `fuzzy` on the typed line",
            lambda ms: [
                (p, r)
                for p, r in traffic.answers("textDocument/completion")
                if p["position"] == {"line": fuzzy_line, "character": fuzzy_column + 2}
                and "fuzzy" in {item["label"] for item in (r or {}).get("items", [])}
            ],
        )
        # The server answers the matcher kinds; Kate narrows the list to what starts with `fu`.
        assert {item["label"] for item in completed[0][1]["items"]} == {"fuzzy", "regex"}

        # Our initialize answer offers document links; Kate 22.12 has none to show, and never
        # asks (the capability table says so).
        [(_, welcome)] = traffic.answers("initialize")
        assert "documentLinkProvider" in welcome["capabilities"], welcome
        asked = {m.get("method") for sender, m in traffic.messages() if sender == "client"}
        assert "textDocument/documentLink" not in asked, sorted(filter(None, asked))
