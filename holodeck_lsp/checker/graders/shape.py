"""Which functions of a module could be graders, read statically (never imported).

One predicate for the two places that offer grader names: `grader:` completion and the HD132
"Change to '<closest grader>'" quick fix — so neither proposes an import, a class or a
constant, and both agree on what a grader looks like.
"""

from __future__ import annotations

from pathlib import Path

from holodeck_lsp.checker.python_source.bindings import Callability
from holodeck_lsp.checker.python_source.module_names import top_level_names
from holodeck_lsp.checker.python_source.signatures import ParameterKind, function_signature

_POSITIONAL = (ParameterKind.POSITIONAL_ONLY, ParameterKind.POSITIONAL_OR_KEYWORD)


def grader_shaped(path: Path, name: str) -> bool:
    """A function defined in `path` that can be called as a grader is: with one positional
    argument (the grading context). Imports, classes and constants are not graders."""
    signature = function_signature(path, name)
    if signature is None or signature.path != path:
        return False
    params = signature.parameters
    takes_one = any(p.kind in _POSITIONAL or p.kind is ParameterKind.VAR_POSITIONAL for p in params)
    required = [p for p in params if p.kind in _POSITIONAL and p.default is None]
    keyword_required = [
        p for p in params if p.kind is ParameterKind.KEYWORD_ONLY and p.default is None
    ]
    return takes_one and len(required) <= 1 and not keyword_required


def public_callables(path: Path) -> list[tuple[str, str]]:
    """(name, description) of each public top-level name of `path` that may be callable."""
    names = top_level_names(path)
    return [
        (name, binding.description)
        for name, binding in names.bindings.items()
        if binding.callability is not Callability.NOT_CALLABLE and not name.startswith("_")
    ]


def grader_functions(path: Path) -> list[tuple[str, str]]:
    """(name, description) of each grader-shaped public function defined in `path`."""
    return [(name, what) for name, what in public_callables(path) if grader_shaped(path, name)]
