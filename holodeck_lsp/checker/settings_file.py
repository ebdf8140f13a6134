"""Where holodeck-lsp's own settings file is: `holodeck-lsp.yaml` (or `.yml`) beside the agent
file, else in ~/.holodeck/. One list of names for every reader of it: the settings room
(settings/: the models a run covers, limits, prices) and the checker's own key in it,
`upstream_loadable` (checker/upstream_setting.py) — docs/running.md, "Long runs"."""

from __future__ import annotations

NAMES = ("holodeck-lsp.yaml", "holodeck-lsp.yml")
