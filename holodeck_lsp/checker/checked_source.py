"""One document's raw data, node tree and file: what checks beyond the schema work on.

An agent's test cases may live in an included file; paths stay agent paths
(`test_cases[3].turns[0]…`) while ranges come from the file the value is written in."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml.nodes import Node

from holodeck_lsp.checker.diagnostics import Diagnostic, Range, Severity
from holodeck_lsp.checker.located import format_path, where_of
from holodeck_lsp.checker.yaml_document import Located, key_node_for, locate, node_range
from holodeck_lsp.checker.yaml_locate import KeyIndex
from holodeck_lsp.schema.codes import Code

Path = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class CheckedSource:
    file: str
    root: Node
    #: Agent-shaped data (`{"test_cases": [...]}` for an included file).
    data: Any
    #: Agent path of `root` (("test_cases",) for an included file).
    prefix: Path = ()
    #: Each mapping's keys, read once for all the checks locating things in `root`.
    keys: KeyIndex = field(default_factory=KeyIndex, compare=False, repr=False)

    def locate(self, path: Path) -> Located:
        return locate(self.root, path[len(self.prefix) :], self.keys)

    def key_range(self, mapping_path: Path, key: str) -> Range:
        """The range of `key` in the mapping at `mapping_path` (the mapping's, if absent)."""
        mapping = self.locate(mapping_path).node
        key_node = key_node_for(mapping, key, self.keys)
        return node_range(key_node if key_node is not None else mapping)

    def diagnostic(
        self,
        path: Path,
        where: Range,
        code: Code,
        message: str,
        severity: Severity,
        data: dict[str, str] | None = None,
    ) -> Diagnostic:
        place, label = where_of(self.data, path)
        return Diagnostic(
            file=self.file,
            range=where,
            severity=severity,
            code=code,
            message=message,
            field_path=format_path(path),
            test_case=label,
            data=data or {},
            where=place,
        )
