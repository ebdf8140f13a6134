"""Walking a module's top-level statements in order to learn what each name is bound to."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence

from holodeck_lsp.checker.python_source.bindings import Callability, Env, NameBinding
from holodeck_lsp.checker.python_source.parsing import char_col
from holodeck_lsp.checker.python_source.value_kinds import classify_value


class BindingScanner:
    """Walks module-level statements in order, tracking what each name is bound to.

    Straight-line code overrides earlier bindings; alternatives (`if`/`else`, `try`/`except`,
    loops that may not run) are merged, and a name bound on only one branch still counts.
    """

    def __init__(self, source_lines: list[str]) -> None:
        self.lines = source_lines
        self.open_reasons: list[str] = []

    def run(self, statements: Iterable[ast.stmt], env: Env) -> Env:
        for statement in statements:
            env = self.statement(statement, env)
        return env

    def statement(self, node: ast.stmt, env: Env) -> Env:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            kind = "async function" if isinstance(node, ast.AsyncFunctionDef) else "function"
            self.bind_definition(node, kind, env)
        elif isinstance(node, ast.ClassDef):
            self.bind_definition(node, "class", env)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                self.assign(target, node.value, env)
        elif isinstance(node, ast.AnnAssign):
            # `x: int` without a value binds nothing at runtime.
            if node.value is not None:
                self.assign(node.target, node.value, env)
        elif isinstance(node, ast.AugAssign):
            self.augmented(node, env)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            self.imports(node, env)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                for name in _target_names(target):
                    env.pop(name.id, None)
        else:
            return self.compound(node, env)
        return env

    def compound(self, node: ast.stmt, env: Env) -> Env:
        if isinstance(node, ast.If):
            return _merge([self.run(node.body, dict(env)), self.run(node.orelse, dict(env))])
        if isinstance(node, ast.Try | ast.TryStar):
            return self.try_block(node, env)
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                if item.optional_vars is not None:
                    self.bind_unknown(item.optional_vars, "with target", env)
            return self.run(node.body, env)
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            return self.loop(node, env)
        if isinstance(node, ast.Match):
            return self.match(node, env)
        return env

    def try_block(self, node: ast.Try | ast.TryStar, env: Env) -> Env:
        after_body = self.run(node.orelse, self.run(node.body, dict(env)))
        # A handler may run after any part of the body, so it starts from either state.
        handler_start = _merge([env, after_body])
        branches = [after_body]
        for handler in node.handlers:
            branch = self.run(handler.body, dict(handler_start))
            if handler.name:
                branch.pop(handler.name, None)  # `except E as e` unbinds `e` afterwards
            branches.append(branch)
        return self.run(node.finalbody, _merge(branches))

    def loop(self, node: ast.For | ast.AsyncFor | ast.While, env: Env) -> Env:
        body_env = dict(env)
        if isinstance(node, ast.For | ast.AsyncFor):
            self.bind_unknown(node.target, "loop variable", body_env)
        # The body may run zero times.
        after = _merge([env, self.run(node.body, body_env)])
        return self.run(node.orelse, after)

    def match(self, node: ast.Match, env: Env) -> Env:
        branches = [dict(env)]  # no case matched
        for case in node.cases:
            case_env = dict(env)
            for sub in ast.walk(case.pattern):
                name = sub.rest if isinstance(sub, ast.MatchMapping) else None
                if isinstance(sub, ast.MatchAs | ast.MatchStar):
                    name = sub.name
                if name is not None:
                    case_env[name] = self.binding(name, sub, Callability.UNKNOWN, "match capture")
            branches.append(self.run(case.body, case_env))
        return _merge(branches)

    def bind_definition(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, kind: str, env: Env
    ) -> None:
        env[node.name] = self.binding(node.name, node, Callability.CALLABLE, kind)
        if node.name == "__getattr__" and kind != "class":
            self.open_reasons.append("the module defines __getattr__")

    def assign(self, target: ast.expr, value: ast.expr, env: Env) -> None:
        if isinstance(target, ast.Name):
            callability, description = classify_value(value, env)
            env[target.id] = self.binding(target.id, target, callability, description)
            if target.id == "__getattr__":
                self.open_reasons.append("the module assigns __getattr__")
        elif isinstance(target, ast.Tuple | ast.List):
            self.unpack(target, value, env)
        elif isinstance(target, ast.Starred):
            self.bind_unknown(target.value, "unpacked value", env)

    def unpack(self, target: ast.Tuple | ast.List, value: ast.expr, env: Env) -> None:
        has_star = any(isinstance(e, ast.Starred) for e in target.elts)
        if (
            isinstance(value, ast.Tuple | ast.List)
            and not has_star
            and not any(isinstance(e, ast.Starred) for e in value.elts)
            and len(value.elts) == len(target.elts)
        ):
            for sub_target, sub_value in zip(target.elts, value.elts, strict=True):
                self.assign(sub_target, sub_value, env)
            return
        for element in target.elts:
            if isinstance(element, ast.Starred) and isinstance(element.value, ast.Name):
                name = element.value.id
                env[name] = self.binding(name, element.value, Callability.NOT_CALLABLE, "list")
            else:
                self.bind_unknown(element, "unpacked value", env)

    def augmented(self, node: ast.AugAssign, env: Env) -> None:
        if not isinstance(node.target, ast.Name):
            return
        previous = env.get(node.target.id)
        callability: Callability
        # `x += ...` keeps a number, string or list what it was; anything else we cannot tell.
        if previous is not None and previous.callability is Callability.NOT_CALLABLE:
            callability, description = previous.callability, previous.description
        else:
            callability, description = Callability.UNKNOWN, "augmented assignment"
        env[node.target.id] = self.binding(node.target.id, node.target, callability, description)

    def imports(self, node: ast.Import | ast.ImportFrom, env: Env) -> None:
        for alias in node.names:
            if isinstance(node, ast.ImportFrom) and alias.name == "*":
                source = "." * node.level + (node.module or "")
                self.open_reasons.append(f"'from {source} import *'")
                continue
            if isinstance(node, ast.Import):
                bound = alias.asname or alias.name.partition(".")[0]
                description = f"import of '{alias.name}'"
            else:
                bound = alias.asname or alias.name
                source = "." * node.level + (node.module or "")
                description = f"'{alias.name}' imported from '{source}'"
            env[bound] = self.binding(bound, alias, Callability.UNKNOWN, description)

    def bind_unknown(self, target: ast.expr, description: str, env: Env) -> None:
        for name in _target_names(target):
            env[name.id] = self.binding(name.id, name, Callability.UNKNOWN, description)

    def binding(
        self, name: str, node: ast.AST, callability: Callability, description: str
    ) -> NameBinding:
        lineno: int = getattr(node, "lineno", 1)
        col = char_col(self.lines, lineno, getattr(node, "col_offset", 0))
        return NameBinding(name, callability, description, lineno - 1, col)


def _target_names(target: ast.expr) -> list[ast.Name]:
    """The plain names an assignment target binds (attributes and subscripts bind none)."""
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return [name for element in target.elts for name in _target_names(element)]
    return []


def _merge(envs: Sequence[Env]) -> Env:
    """Join alternative states: a name present on any branch exists; if branches disagree about
    whether it is callable, it is UNKNOWN."""
    merged: Env = {}
    for env in envs:
        for name, binding in env.items():
            earlier = merged.get(name)
            if earlier is None or earlier == binding:
                merged[name] = binding
            elif earlier.callability is not binding.callability:
                merged[name] = NameBinding(
                    name,
                    Callability.UNKNOWN,
                    f"{earlier.description} or {binding.description}",
                    max(earlier.line, binding.line),
                    binding.col if binding.line >= earlier.line else earlier.col,
                )
            elif binding.line >= earlier.line:
                merged[name] = binding
    return merged
