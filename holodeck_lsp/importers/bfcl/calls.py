"""BFCL's ground-truth calls (`mv(source='a.txt', destination='temp')`) read with `ast`, never
evaluated: a name, positional and keyword arguments, every argument a Python literal."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from holodeck_lsp.checker.python_source.ast_parse import parse_python


@dataclass(frozen=True, slots=True)
class Call:
    name: str
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...]

    def named(self, parameter_order: list[str]) -> dict[str, Any]:
        """The arguments by name, positional ones named by the function's parameter order."""
        if len(self.args) > len(parameter_order):
            raise ValueError(
                f"{self.name} takes {len(parameter_order)} arguments, the call passes "
                f"{len(self.args)} positionally"
            )
        named = dict(zip(parameter_order, self.args, strict=False))
        for key, value in self.kwargs:
            if key in named:
                raise ValueError(f"{self.name}: argument {key!r} given twice")
            named[key] = value
        return named


def parse_call(text: str) -> Call:
    """One call; ValueError saying what is wrong with it."""
    try:
        node = parse_python(text.strip(), mode="eval").body
    except SyntaxError as error:
        raise ValueError(f"not a Python call ({error.msg})") from None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError("not a call of a function by its name")
    try:
        args = tuple(ast.literal_eval(arg) for arg in node.args)
        kwargs = []
        for keyword in node.keywords:
            if keyword.arg is None:
                raise ValueError("**arguments are not supported")
            kwargs.append((keyword.arg, ast.literal_eval(keyword.value)))
    except (ValueError, SyntaxError, TypeError) as error:
        raise ValueError(f"an argument is not a literal value ({error})") from None
    return Call(node.func.id, args, tuple(kwargs))
