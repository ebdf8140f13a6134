"""The importers `holodeck-lsp import DATASET` knows, in one registry: each is an `Importer`
(protocol.py: its name, a one-line description, its argparse arguments, `run(args) ->
ImportResult`), and the command's dataset choices, its `--help`, `holodeck-lsp --help` and
shell completion are all read from `importers()` (main.py). Adding a dataset is one class and
one entry of `_REGISTERED` (docs/importing.md, "Adding an importer").

Here in commands/, not in importers/: an importer declares argparse flags, and only commands/
parses flags (docs/architecture.md). The importers' own packages (holodeck_lsp/importers/
convfinqa, bfcl) keep their entry points and know nothing of this protocol; convfinqa.py and
bfcl.py here wrap them. An importer writes the suite and reports what it wrote; it never
prints — main.py says it (warnings, the summary line, the next step).
"""

from __future__ import annotations

from collections.abc import Sequence

from holodeck_lsp.commands.import_.bfcl import BfclImporter
from holodeck_lsp.commands.import_.convfinqa import ConvFinQAImporter
from holodeck_lsp.commands.import_.otel import OtelImporter
from holodeck_lsp.commands.import_.protocol import Importer
from holodeck_lsp.commands.import_.tau2 import Tau2Importer

#: The datasets, in the order `import --help` lists them.
_REGISTERED: list[Importer] = [ConvFinQAImporter(), BfclImporter(), Tau2Importer(), OtelImporter()]


def importers() -> Sequence[Importer]:
    return tuple(_REGISTERED)


def find_importer(name: str) -> Importer | None:
    return next((importer for importer in _REGISTERED if importer.name == name), None)


def register(importer: Importer) -> None:
    """Add `importer` (a name already registered is replaced)."""
    _REGISTERED[:] = [known for known in _REGISTERED if known.name != importer.name]
    _REGISTERED.append(importer)
