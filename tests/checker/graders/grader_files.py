"""What the grader resolution tests share: a grader module with one of each kind of top-level
name, a file writer, and one-call forms of both resolvers (the `agent` fixture, a folder
holding that module, is in conftest.py)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from holodeck_lsp.checker.graders.problems import GraderProblem
from holodeck_lsp.checker.graders.static import resolve_graders_static
from holodeck_lsp.checker.graders.trusted import resolve_graders_trusted


def write(root: Path, relative: str, text: str = "") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def static(agent_dir: Path, spec: str) -> GraderProblem | None:
    return resolve_graders_static([spec], agent_dir)[spec]


def trusted(agent_dir: Path, spec: str, timeout: float = 10.0) -> GraderProblem | None:
    return resolve_graders_trusted([spec], agent_dir, timeout=timeout)[spec]


GRADERS = """
    import functools
    from difflib import SequenceMatcher

    THRESHOLD = 3
    NAMES = ["a", "b"]

    def grade_program(ctx):
        return 1.0

    async def grade_async(ctx):
        return 1.0

    class Grader:
        def __call__(self, ctx):
            return 1.0

    lenient = functools.partial(grade_program)
"""

WRITES_ON_IMPORT = """
    from pathlib import Path
    Path(__file__).with_name("IMPORTED").write_text("yes")

    def grade(ctx):
        return 1.0
"""


Resolver = Callable[[Path, str], GraderProblem | None]
BOTH = pytest.mark.parametrize("resolve", [static, trusted], ids=["static", "trusted"])
