"""Whether an assigned expression's value looks callable, read from the expression alone.

`x = 3` is certainly not a grader; `x = make_grader()` may well be. The classifier says
NOT_CALLABLE only for literals and arithmetic on them, CALLABLE for definitions, lambdas and
calls (the common way to build a callable), and UNKNOWN otherwise, so a guess never turns into
a false error.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Sequence

from holodeck_lsp.checker.python_source.bindings import MODULE_DUNDERS, Callability, Env

_LITERAL_DISPLAYS: dict[type[ast.expr], str] = {
    ast.List: "list",
    ast.ListComp: "list",
    ast.Tuple: "tuple",
    ast.Dict: "dict",
    ast.DictComp: "dict",
    ast.Set: "set",
    ast.SetComp: "set",
    ast.GeneratorExp: "generator",
    ast.JoinedStr: "str (f-string)",
    ast.Compare: "comparison result (bool)",
}


def classify_value(value: ast.expr, env: Env) -> tuple[Callability, str]:
    """Whether the value of expression `value` looks callable, and a noun phrase for it."""
    if isinstance(value, ast.Lambda):
        return Callability.CALLABLE, "lambda"
    if isinstance(value, ast.Call):
        # `functools.partial(...)`, a class instantiation, a decorator factory: callables are
        # the common case, and we must not call a grader "not callable" on a guess.
        return Callability.CALLABLE, f"result of calling {_short_source(value.func)}"
    if isinstance(value, ast.Constant):
        return Callability.NOT_CALLABLE, _constant_description(value.value)
    if type(value) in _LITERAL_DISPLAYS:
        return Callability.NOT_CALLABLE, _LITERAL_DISPLAYS[type(value)]
    if isinstance(value, ast.Name):
        return _classify_name(value.id, env)
    if isinstance(value, ast.NamedExpr):
        return classify_value(value.value, env)
    if isinstance(value, ast.UnaryOp):
        if isinstance(value.op, ast.Not):
            return Callability.NOT_CALLABLE, "bool"
        return _classify_literal_operands([value.operand], env)
    if isinstance(value, ast.BinOp):
        return _classify_literal_operands([value.left, value.right], env)
    if isinstance(value, ast.IfExp):
        return _combine([classify_value(value.body, env), classify_value(value.orelse, env)])
    if isinstance(value, ast.BoolOp):
        return _combine([classify_value(operand, env) for operand in value.values])
    return Callability.UNKNOWN, f"value of {_short_source(value)}"


def _classify_name(name: str, env: Env) -> tuple[Callability, str]:
    if name in env:
        bound = env[name]
        return bound.callability, f"alias of '{name}' ({bound.description})"
    if name in MODULE_DUNDERS:
        return Callability.NOT_CALLABLE, f"alias of module attribute '{name}'"
    if hasattr(builtins, name):
        # Builtins are the interpreter's own objects, safe to look at.
        is_callable = callable(getattr(builtins, name))
        return (
            Callability.CALLABLE if is_callable else Callability.NOT_CALLABLE,
            f"builtin '{name}'",
        )
    return Callability.UNKNOWN, f"alias of '{name}'"


def _classify_literal_operands(operands: Sequence[ast.expr], env: Env) -> tuple[Callability, str]:
    """Arithmetic on literals (`-1`, `"a" + "b"`, `[x] * 3`) gives a literal; else unknown."""
    kinds = [classify_value(operand, env) for operand in operands]
    if all(callability is Callability.NOT_CALLABLE for callability, _ in kinds):
        return Callability.NOT_CALLABLE, kinds[0][1]
    return Callability.UNKNOWN, "expression"


def _combine(alternatives: Sequence[tuple[Callability, str]]) -> tuple[Callability, str]:
    callabilities = {callability for callability, _ in alternatives}
    description = " or ".join(dict.fromkeys(description for _, description in alternatives))
    if len(callabilities) == 1:
        return alternatives[0][0], description
    return Callability.UNKNOWN, description


def _constant_description(value: object) -> str:
    if value is None:
        return "None"
    if value is Ellipsis:
        return "Ellipsis"
    return f"{type(value).__name__} literal"


def _short_source(node: ast.AST, limit: int = 40) -> str:
    text = ast.unparse(node)
    return text if len(text) <= limit else text[: limit - 1] + "…"
