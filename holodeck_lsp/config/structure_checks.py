"""Shape rules of a test case checked on the raw data, so they are reported together with
every other fault of the same case.

The schema enforces the same rules (for anyone validating data directly), but pydantic only
runs a model's cross-field rules once all of that model's fields are valid: a `turns:` case
that still has `input:` *and* a bad turn would show one fault, then the other after a fix.
Here each conflicting key gets its own diagnostic at once; the loader drops the schema's
duplicate of the same finding.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from holodeck_lsp.config.checked_source import CheckedSource
from holodeck_lsp.config.data_walk import iter_cases
from holodeck_lsp.config.diagnostics import Diagnostic, Severity
from holodeck_lsp.config.validation_errors import compact_range
from holodeck_lsp.config.yaml_document import node_range
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.test_case import LEGACY_FIELDS


def check_case_shapes(sources: Sequence[CheckedSource]) -> list[Diagnostic]:
    return [d for source in sources for d in _case_shapes(source)]


def _case_shapes(source: CheckedSource) -> Iterator[Diagnostic]:
    for path, case in iter_cases(source.data):
        if path[: len(source.prefix)] != source.prefix:
            continue
        if case.get("turns") is not None:
            mixed = [name for name in LEGACY_FIELDS if case.get(name) is not None]
            listed = ", ".join(f"`{name}`" for name in mixed)
            for name in mixed:
                located = source.locate((*path, name))
                where = located.key if located.key is not None else located.node
                yield source.diagnostic(
                    (*path, name),
                    node_range(where),
                    Code.TURNS_MIXED_WITH_LEGACY,
                    f"a multi-turn case (with `turns`) cannot also set {listed} at case "
                    "level; move them onto the turns they belong to",
                    Severity.ERROR,
                )
        elif case.get("input") is None:
            located = source.locate(path)
            yield source.diagnostic(
                path,
                compact_range(located.node, located.key),
                Code.NO_INPUT_OR_TURNS,
                "a test case needs `input` (single-turn) or `turns` (multi-turn)",
                Severity.ERROR,
            )
