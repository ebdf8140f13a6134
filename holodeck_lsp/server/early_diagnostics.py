"""The first diagnostics of the files a client opens at start, published before pygls is
imported.

When `initialize` was answered from the cache (`early_handshake`), the client goes on at once
with `initialized` and a `didOpen` for each buffer it shows. The checker does not need the
protocol library (pygls + lsprotocol, half a second or more of a cold start), so this module
reads those messages as they arrive, checks each opened agent file with the server's own fast
pass (`analysis.analyse`, untrusted — the server's first check is the same) and publishes the
result, converted as the server converts it (`lsp_json`, the position encoding of the cached
answer). The server then starts and reads every message again (`ReplayingStdin`); its didOpen
takes the check made here (`DiagnosticsEngine.prechecked`, same version and text) instead of
checking again, so every request after it sees that check, and publishes the same items plus
what other features contribute (inline run results).

Kept to what the server would publish:
- only files that are agents by name (the `agentGlobs` of initializationOptions, or the
  defaults) with a top-level `model:`, `instructions:` or `name:` — the server classifies
  the didOpen by the same initializationOptions before it reads the workspace settings, and
  clears a file those settings leave out (`DiagnosticsEngine.settings_changed`);
- nothing in pull mode (initializationOptions `diagnostics: "pull"`);
- a `workspace/didChangeConfiguration` among them (Neovim 0.11 sends one) is taken as the
  server takes it: its settings apply at once only for a client the server cannot ask;
- the look-ahead stops at the first message that is not `initialized`, `$/setTrace`,
  `workspace/didChangeConfiguration` or a `didOpen`, after `FIRST_WAIT_S` without a message
  after the answer or `NEXT_WAIT_S` between messages: a client that is slow to speak waits
  that long for the server, no more.

`HOLODECK_LSP_EARLY_DIAGNOSTICS=0` turns this off (as `HOLODECK_LSP_EARLY_HANDSHAKE=0` turns
off both).
"""

from __future__ import annotations

import os
from typing import Any, BinaryIO

from holodeck_lsp.server.early_handshake import EarlyStart, PipeReader, frame, read_message

SWITCH = "HOLODECK_LSP_EARLY_DIAGNOSTICS"
#: How long to wait for the client's first message after the initialize answer.
FIRST_WAIT_S = 0.1
#: How long to wait for each further message (a client sends its didOpens in one go).
NEXT_WAIT_S = 0.05
#: Messages that may come before or between the didOpens without changing what is published.
_PASSING = ("initialized", "$/setTrace")
#: Sent by Neovim 0.11 between `initialized` and its didOpens (its `settings`).
_SETTINGS_CHANGED = "workspace/didChangeConfiguration"


def enabled(env: dict[str, str] | os._Environ[str] = os.environ) -> bool:
    return env.get(SWITCH, "1").strip().lower() not in ("0", "false", "no", "off")


def publish_early(reader: PipeReader, stdout: BinaryIO, early: EarlyStart) -> int:
    """Read what the client sends next and publish the diagnostics of the agent files it
    opens; the number of publishes written. Never raises: the server handles all of it again."""
    if early.sent is None:  # the client waits for the server's own answer: nothing will come
        return 0
    from holodeck_lsp.server.settings import Settings

    settings = Settings()
    settings.apply_initialization_options(early.params.get("initializationOptions"))
    if settings.diagnostics == "pull":
        return 0
    encoding = _encoding(early.sent)
    published = 0
    wait_s = FIRST_WAIT_S
    while reader.wait(wait_s):
        wait_s = NEXT_WAIT_S
        read = read_message(reader)
        if read is None:
            return published
        message = read[1]
        method = message.get("method") if isinstance(message, dict) else None
        if method in _PASSING:
            continue
        if method == _SETTINGS_CHANGED:
            _take_pushed_settings(message.get("params"), settings, early)
            continue
        if method != "textDocument/didOpen":
            return published
        try:
            published += _publish_opened(message.get("params"), settings, encoding, stdout, early)
        except Exception:  # the server checks the same file again and logs what it finds
            _log().exception("the early check of an opened file failed")
            return published
    return published


def _publish_opened(
    params: Any, settings: Any, encoding: str, stdout: BinaryIO, early: EarlyStart
) -> int:
    document = params.get("textDocument") if isinstance(params, dict) else None
    if not isinstance(document, dict):
        return 0
    uri, text, version = document.get("uri"), document.get("text"), document.get("version")
    if not (isinstance(uri, str) and isinstance(text, str) and isinstance(version, int)):
        return 0
    from holodeck_lsp.server.documents.index import (
        has_agent_key,
        matches_globs,
        path_key,
        path_to_uri,
        uri_to_path,
    )

    path = uri_to_path(uri)
    if path is None or not (matches_globs(path, settings.agent_globs) and has_agent_key(text)):
        return 0
    from holodeck_lsp.server.documents.positions import PositionConverter
    from holodeck_lsp.server.features.diagnostics.analysis import analyse, by_file
    from holodeck_lsp.server.features.diagnostics.lsp_json import diagnostic_json
    from holodeck_lsp.server.trust import load_options

    analysis = analyse(path, text, version, load_options(settings))  # the fast pass: static
    early.checked[uri] = analysis
    agent_key = path_key(analysis.agent_path)
    written = 0
    for key, items in by_file(analysis, analysis.diagnostics).items():
        converter = PositionConverter(analysis.texts.get(key, ""), encoding)
        published: dict[str, Any] = {
            "uri": uri if key == agent_key else path_to_uri(key),
            "diagnostics": [diagnostic_json(item, converter) for item in items],
        }
        if key == agent_key:  # includes are checked as saved: no version (as the server does)
            published["version"] = version
        stdout.write(
            frame(
                {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": published}
            )
        )
        written += 1
    stdout.flush()
    return written


def _take_pushed_settings(params: Any, settings: Any, early: EarlyStart) -> None:
    """What the server does with a didChangeConfiguration that comes before the didOpens: a
    client it can ask (`workspace/configuration`) is asked, and its answer arrives only after
    those didOpens were handled — they are classified by the settings as they were; from a
    client it cannot ask, the pushed `holodeck` section is taken at once."""
    capabilities = early.params.get("capabilities")
    workspace = capabilities.get("workspace") if isinstance(capabilities, dict) else None
    if isinstance(workspace, dict) and workspace.get("configuration"):
        return
    pushed = params.get("settings") if isinstance(params, dict) else None
    if isinstance(pushed, dict):
        from holodeck_lsp.server.settings import SECTION

        settings.apply_configuration(pushed.get(SECTION))


def _encoding(answer: Any) -> str:
    capabilities = answer.get("capabilities") if isinstance(answer, dict) else None
    encoding = capabilities.get("positionEncoding") if isinstance(capabilities, dict) else None
    return encoding if isinstance(encoding, str) else "utf-16"


def _log() -> Any:
    import logging

    return logging.getLogger("holodeck_lsp.server")
