"""Server settings: trust and diagnostics mode from `initializationOptions`, the rest from the
client's `workspace/configuration` section `holodeck` (re-read on didChangeConfiguration).

Trust comes only from `initializationOptions.trusted` — the editor's own workspace-trust
decision, made before the server starts — never from workspace settings, which a cloned
repository could ship. Untrusted (the default): graders are resolved statically and never
imported, and run commands are refused — decided in one place, `server/trust.py`.

The values only: the handlers that read them from the client are the `configuration` feature
(`features/configuration.py`), so the server object can hold its settings without importing
any feature.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

SECTION: Final = "holodeck"
DEFAULT_AGENT_GLOBS: Final = ("agent.yaml", "*.agent.yaml")
DEFAULT_DEBOUNCE_MS: Final = 50
MAX_DEBOUNCE_MS: Final = 5_000

DiagnosticsMode = Literal["push", "pull", "both"]
_MODES: Final = ("push", "pull", "both")


@dataclass(slots=True)
class Settings:
    #: Import graders and allow runs — from initializationOptions only; read by trust.py only.
    trusted: bool = False
    #: "push" publishDiagnostics; "pull" textDocument/diagnostic + workspace/diagnostic; "both".
    diagnostics: DiagnosticsMode = "push"
    #: File-name globs (matched against the end of the path) of agent files.
    agent_globs: tuple[str, ...] = DEFAULT_AGENT_GLOBS
    debounce_ms: int = DEFAULT_DEBOUNCE_MS
    #: Stored for the run features; not used by diagnostics.
    cassette_path: str | None = None
    backends: dict[str, Any] = field(default_factory=dict)
    #: Re-grade edited cases from their recorded answers as the file is checked (quietly:
    #: Information diagnostics); False turns it off — results then come from runs only.
    regrade_on_edit: bool = True
    #: The stored run (a tag, id or id prefix; see `holodeck-lsp runs --tag`) regression marks
    #: compare with; None: the run before the one shown (server/runs/baseline_sides.py).
    baseline: str | None = None
    #: Store each "Run all" in the run history (`.holodeck/runs/`), as `holodeck-lsp run` does.
    save_runs: bool = True

    def apply_initialization_options(self, options: object) -> None:
        if not isinstance(options, Mapping):
            return
        self.trusted = options.get("trusted") is True
        mode = options.get("diagnostics")
        if mode in _MODES:
            self.diagnostics = mode
        # Clients without workspace/configuration may pass the settings here too.
        self.apply_configuration(options)

    def apply_configuration(self, raw: object) -> None:
        """Take the known keys of a `holodeck` settings object; bad values are ignored."""
        if not isinstance(raw, Mapping):
            return
        globs = _pick(raw, "agentGlobs", "agent_globs")
        if isinstance(globs, list) and all(isinstance(g, str) and g for g in globs):
            self.agent_globs = tuple(globs) or DEFAULT_AGENT_GLOBS
        debounce = _pick(raw, "debounceMs", "debounce_ms")
        if isinstance(debounce, int | float) and not isinstance(debounce, bool):
            self.debounce_ms = int(max(0, min(debounce, MAX_DEBOUNCE_MS)))
        if "cassettePath" in raw or "cassette_path" in raw:  # absent: keep; empty or null: clear
            cassette = _pick(raw, "cassettePath", "cassette_path")
            if cassette is None or isinstance(cassette, str):
                self.cassette_path = cassette or None
        regrade = _pick(raw, "regradeOnEdit", "regrade_on_edit")
        if isinstance(regrade, bool):
            self.regrade_on_edit = regrade
        if "baseline" in raw:  # absent: keep; empty or null: the previous run
            baseline = raw["baseline"]
            if baseline is None or isinstance(baseline, str):
                self.baseline = (baseline.strip() or None) if baseline else None
        save = _pick(raw, "saveRuns", "save_runs")
        if isinstance(save, bool):
            self.save_runs = save
        backends = _pick(raw, "backends")
        if isinstance(backends, Mapping):
            self.backends = dict(backends)


def _pick(raw: Mapping[Any, Any], *names: str) -> Any:
    for name in names:
        if name in raw:
            return raw[name]
    return None
