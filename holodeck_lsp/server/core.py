"""The server object every feature module registers on, and the state all of them share:
settings, the position encoding, and the hooks and listeners features hang on to it.

No feature lives here and nothing here imports one: what a feature owns (the diagnostics
engine, the run commands' runner) is built in `app.py` and handed to the features that use it.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import threading
from collections.abc import Callable, Generator
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from holodeck_lsp import __version__
from holodeck_lsp.server import threads
from holodeck_lsp.server.client_redaction import ClientRedaction
from holodeck_lsp.server.documents.positions import UTF16, PositionConverter, choose_encoding
from holodeck_lsp.server.invalid_params import RejectedRequest, rejected_request
from holodeck_lsp.server.settings import Settings

NAME = "holodeck-lsp"
#: How long a request waits for the first workspace settings (`settings_read`).
SETTINGS_TIMEOUT_S = 5.0


class HolodeckProtocol(LanguageServerProtocol):
    """pygls picks the client's first offered encoding; we prefer utf-32 (our own unit, so no
    conversion) and otherwise utf-16, which every client supports. A request whose params
    cannot be read is answered with the invalid-params error (server/invalid_params.py)."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as failure:
            rejected = rejected_request(data, failure)
            if rejected is None:
                raise
            return rejected

    def handle_message(self, message: Any) -> None:
        if isinstance(message, RejectedRequest):
            if not self._shutdown:
                self._send_response(message.id, None, message.error())
            return
        super().handle_message(message)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        general = params.capabilities.general
        if general is not None:
            general.position_encodings = [choose_encoding(general.position_encodings)]
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        return result

    def _send_data(self, data: Any) -> None:
        """Every message, masked (server/client_redaction.py) before it is written."""
        redaction = getattr(self._server, "redaction", None)
        result = getattr(data, "result", None)
        # Semantic tokens are numbers only, and the largest answers: not serialized twice.
        numbers_only = isinstance(result, types.SemanticTokens | types.SemanticTokensDelta)
        if data and redaction and not numbers_only:
            body = json.dumps(data, default=self._serialize_message, ensure_ascii=False)
            if redaction.holds(body):  # else sent as it is: most messages hold no secret
                opened = self._workspace.text_documents if self._workspace is not None else {}
                data = redaction.data(json.loads(body), keep=lambda text: text in opened)
        super()._send_data(data)


class HolodeckServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            NAME,
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=HolodeckProtocol,
        )
        self.settings = Settings()
        #: What every message sent to the client is masked with (`HolodeckProtocol._send_data`).
        self.redaction = ClientRedaction()
        #: Run by the `initialize` handler, before capabilities are computed (so a hook may
        #: still register features).
        self.initialize_hooks: list[Callable[[types.InitializeParams], None]] = []
        self.settings_listeners: list[Callable[[], None]] = []
        self._settings_read = asyncio.Event()
        #: Called (on the event loop) when a document is opened, changed or saved.
        self.activity_listeners: list[Callable[[], None]] = []

    @property
    def position_encoding(self) -> str:
        encoding = self.workspace.position_encoding
        if isinstance(encoding, types.PositionEncodingKind):
            return encoding.value  # str() of this str-enum is its qualified name
        return encoding or UTF16

    def converter(self, text: str) -> PositionConverter:
        return PositionConverter(text, self.position_encoding)

    def notify_activity(self) -> None:
        for listener in self.activity_listeners:
            listener()

    def notify_settings_changed(self) -> None:
        for listener in self.settings_listeners:
            listener()

    def settings_were_read(self) -> None:
        """The first `workspace/configuration` answer is in (or the client has none)."""
        self._settings_read.set()

    async def settings_read(self, timeout_s: float = SETTINGS_TIMEOUT_S) -> None:
        """Wait (at most `timeout_s`) for the workspace settings: a run or a lens asked right
        after start — the client may have shown diagnostics published before the server
        started (server/early_diagnostics.py) — must not run on the defaults."""
        if self._settings_read.is_set():
            return
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._settings_read.wait(), timeout_s)

    def warm_up(self) -> None:
        """Import the checker (pydantic models, YAML) in the background while the client is
        still busy with the handshake, so the first didOpen does not pay for it. Stoppable
        between modules: an editor closed right after start waits at exit for one module's
        import, not all of them (server/threads.py waits for the thread)."""
        stop = threading.Event()
        threads.start(lambda: _import_checker(stop), "holodeck-warm-up", stop.set)


#: The checker's import in steps, each a module the next one needs (about 0.2 s in all on
#: the 2-core machine, most of it building the pydantic models of schema/).
CHECKER_MODULES = (
    "pydantic",
    "holodeck_lsp.schema.base",
    "holodeck_lsp.schema.metrics",
    "holodeck_lsp.schema.test_case",
    "holodeck_lsp.schema.agent",
    "holodeck_lsp.checker.loader",
)


def _import_checker(stop: threading.Event) -> None:
    for module in CHECKER_MODULES:
        if stop.is_set():
            return
        importlib.import_module(module)


#: What a run or a re-grade imports first (the SDKs are left to the backends that need them).
RUN_MODULES = (
    "holodeck_lsp.runner.cassette",
    "holodeck_lsp.runner.execution.executor",
    "holodeck_lsp.runner.selection",
    "holodeck_lsp.engine.case_grading",
)


def import_runner() -> None:
    """The executor, replay and graders (not the SDKs): what a run or a re-grade needs first.
    Imported ahead, in the background, by trusted workspaces, so the first re-grade after an
    edit does not pay for it."""
    for module in RUN_MODULES:
        importlib.import_module(module)
