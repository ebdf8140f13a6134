"""Static grader resolution: find the module file as the import system would and read its
top-level names with `ast` — never import, never run `__init__.py`, because the editor opens
untrusted repositories. What cannot be decided statically counts as resolved."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from holodeck_lsp.checker.graders.problems import (
    GraderProblem,
    attribute_missing,
    bad_path,
    not_callable,
    parse_grader_path,
    py_suffix_problem,
    with_article,
)
from holodeck_lsp.checker.python_source.bindings import Callability
from holodeck_lsp.checker.python_source.module_names import ModuleNames, top_level_names
from holodeck_lsp.checker.python_source.module_search import (
    ModuleKind,
    ModuleLocation,
    ModuleSearch,
    default_search_dirs,
    list_modules,
    search_module,
)
from holodeck_lsp.checker.suggestions import closest
from holodeck_lsp.schema.codes import Code


def resolve_graders_static(
    specs: Iterable[str], agent_dir: Path, search_dirs: Sequence[Path] | None = None
) -> dict[str, GraderProblem | None]:
    """Check each grader path without importing anything; None means it resolves (or cannot be
    decided statically). `search_dirs` defaults to `default_search_dirs(agent_dir)`: the agent's
    folder, then this process's `sys.path` directories, then (for top-level names only) this
    process's import finders, which see editable installs.
    """
    agent_dir = agent_dir.absolute()
    dirs = default_search_dirs(agent_dir) if search_dirs is None else list(search_dirs)
    return {
        spec: _check_static(spec, agent_dir, dirs, use_meta_path=search_dirs is None)
        for spec in dict.fromkeys(specs)
    }


def _check_static(
    spec: str, agent_dir: Path, dirs: Sequence[Path], *, use_meta_path: bool
) -> GraderProblem | None:
    parsed = parse_grader_path(spec)
    if parsed is None:
        return bad_path(spec)
    module, attribute = parsed
    search = search_module(module, dirs, use_meta_path=use_meta_path)
    if search.location is None:
        return py_suffix_problem(module, attribute) or _module_not_found(search, agent_dir)
    return _check_attribute(spec, search.location, attribute)


def _module_not_found(search: ModuleSearch, agent_dir: Path) -> GraderProblem:
    missing = search.missing or search.module
    tail = missing.rpartition(".")[2]
    if search.reason is not None:
        what = search.reason
    elif search.parent is None:
        where = _describe_dirs(search.searched, "more directories on sys.path")
        what = f"no {tail}.py or {tail}/ in {where}"
    else:
        where = _describe_dirs(search.searched, "more directories")
        what = f"package '{search.parent.name}' has no {tail}.py or {tail}/ (looked in {where})"
    if search.parent is None:
        candidates = list_modules(agent_dir)
        fix = f"create {agent_dir / tail}.py or fix the module path"
    else:
        candidates = sorted({name for d in search.parent.search_path for name in list_modules(d)})
        fix = "fix the module path"
    return GraderProblem(
        Code.GRADER_MODULE_NOT_FOUND,
        f"module '{search.module}' not found: {what}; " + _did_you_mean(tail, candidates, fix),
    )


def _describe_dirs(dirs: Sequence[Path], more: str) -> str:
    if not dirs:
        return "no directories"
    if len(dirs) <= 2:
        return " and ".join(str(d) for d in dirs)
    return f"{dirs[0]} and {len(dirs) - 1} {more}"


def _check_attribute(spec: str, location: ModuleLocation, attribute: str) -> GraderProblem | None:
    if location.kind is ModuleKind.NAMESPACE:
        return _namespace_attribute(location, attribute)
    source = location.source_path
    if source is None:
        return None  # compiled, builtin or frozen: only an import could tell
    names = top_level_names(source)
    binding = names.lookup(attribute)
    if binding is None:
        submodule = _submodule_problem(spec, location, attribute)
        return submodule or _attribute_missing_static(location, attribute, names)
    if binding.callability is Callability.NOT_CALLABLE:
        what = with_article(binding.description)
        defined_at = f"{source}:{binding.line + 1}"
        return not_callable(spec, attribute, what, f"defined at {defined_at}")
    return None


def _namespace_attribute(location: ModuleLocation, attribute: str) -> GraderProblem | None:
    if attribute.startswith("__") and attribute.endswith("__"):
        return None
    folders = " and ".join(str(p) for p in location.search_path)
    return GraderProblem(
        Code.GRADER_ATTRIBUTE_MISSING,
        f"module '{location.name}' has no attribute '{attribute}' (looked in {folders}: a folder "
        f"without __init__.py defines no functions); point the grader at a module file, e.g. "
        f"'{location.name}.<module>:{attribute}'",
    )


def _submodule_problem(spec: str, location: ModuleLocation, attribute: str) -> GraderProblem | None:
    """`pkg:sub` where `sub` is a submodule: `getattr` finds nothing, or a module at best."""
    if location.kind is not ModuleKind.PACKAGE:
        return None
    if not any(attribute in list_modules(d) for d in location.search_path):
        return None
    return GraderProblem(
        Code.GRADER_ATTRIBUTE_MISSING,
        f"module '{location.name}' has no attribute '{attribute}' (looked in {location.path}); "
        f"'{attribute}' is a submodule, not a callable: write '{location.name}.{attribute}:"
        f"<function>' instead of '{spec}'",
    )


def _attribute_missing_static(
    location: ModuleLocation, attribute: str, names: ModuleNames
) -> GraderProblem:
    candidates = [
        name
        for name, binding in names.bindings.items()
        if binding.callability is not Callability.NOT_CALLABLE
    ]
    suggestion = closest(attribute, candidates) or closest(attribute, list(names.bindings))
    return attribute_missing(location.name, attribute, str(location.path), suggestion)


def _did_you_mean(word: str, candidates: Sequence[str], fix: str) -> str:
    suggestion = closest(word, candidates)
    return f"did you mean '{suggestion}'?" if suggestion else fix
