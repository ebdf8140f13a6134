"""What static and trusted grader resolution share: the grader path's form, `GraderProblem`,
and the messages both modes give for the same fault (so the editor says the same thing whether
or not the workspace is trusted)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from holodeck_lsp.schema.codes import Code

#: The form HoloDeck's schema requires of a grader path.
GRADER_PATH = re.compile(r"^[\w.]+:[\w_]+$")


@dataclass(frozen=True, slots=True)
class GraderProblem:
    """Why a grader path does not resolve; `message` says what is wrong and how to fix it."""

    code: Code
    message: str


def parse_grader_path(spec: str) -> tuple[str, str] | None:
    """Split `module.path:callable` into its two halves, or None if it is malformed."""
    if not GRADER_PATH.match(spec):
        return None
    module, _, attribute = spec.partition(":")
    return module, attribute


def bad_path(spec: str) -> GraderProblem:
    # The schema reports this too (HD130); answering for every spec keeps the result total.
    return GraderProblem(
        Code.BAD_GRADER_PATH,
        f"grader '{spec}' is not of the form 'module.path:callable_name'",
    )


def py_suffix_problem(module: str, attribute: str) -> GraderProblem | None:
    """`graders.py:fn` is a common slip: a file name where a module name belongs."""
    if not module.endswith(".py") or module == ".py":
        return None
    return GraderProblem(
        Code.GRADER_MODULE_NOT_FOUND,
        f"module '{module}' not found: the grader names a file, not a module; "
        f"write '{module.removesuffix('.py')}:{attribute}'",
    )


def attribute_missing(
    module: str, attribute: str, looked_in: str, suggestion: str | None
) -> GraderProblem:
    fix = f"define '{attribute}' there or fix the grader path"
    return GraderProblem(
        Code.GRADER_ATTRIBUTE_MISSING,
        f"module '{module}' has no attribute '{attribute}' (looked in {looked_in}); "
        + (f"did you mean '{suggestion}'?" if suggestion else fix),
    )


def not_callable(spec: str, attribute: str, what: str, where: str) -> GraderProblem:
    return GraderProblem(
        Code.GRADER_NOT_CALLABLE,
        f"grader '{spec}' is not callable: '{attribute}' is {what} ({where}); "
        "point the grader at a function or class",
    )


def with_article(description: str) -> str:
    """`int` -> `an int`; names of singletons (`None`, `Ellipsis`) stay as they are."""
    if description[:1].isupper():
        return description
    return ("an " if description[:1] in "aeiou" else "a ") + description
