"""Loading code graders for a run: import from the agent folder (cached, same-name modules of
another agent refused), stand-ins for graders that cannot load, the time limit from the
environment."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from holodeck_lsp.engine.code_graders import (
    DEFAULT_GRADER_TIMEOUT,
    GraderContext,
    run_code_grader,
)
from holodeck_lsp.runner.agent_code.grader_import import clear_grader_cache, load_grader
from holodeck_lsp.runner.agent_code.grader_loading import default_grader_timeout, load_graders
from holodeck_lsp.schema.metrics import CodeMetric


def metric() -> CodeMetric:
    return CodeMetric(grader="hd_tmp_graders:check")


def context() -> GraderContext:
    return GraderContext(
        turn_input="q",
        agent_response="206588",
        ground_truth=None,
        tool_invocations=(),
        retrieval_context=None,
        turn_index=0,
        test_case_name=None,
        turn_config={},
    )


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, DEFAULT_GRADER_TIMEOUT),
        ({"HOLODECK_GRADER_TIMEOUT": "2.5"}, 2.5),
        ({"HOLODECK_GRADER_TIMEOUT": " 10 "}, 10.0),
        ({"HOLODECK_GRADER_TIMEOUT": "0"}, DEFAULT_GRADER_TIMEOUT),
        ({"HOLODECK_GRADER_TIMEOUT": "-3"}, DEFAULT_GRADER_TIMEOUT),
        ({"HOLODECK_GRADER_TIMEOUT": "soon"}, DEFAULT_GRADER_TIMEOUT),
        ({"HOLODECK_GRADER_TIMEOUT": "nan"}, DEFAULT_GRADER_TIMEOUT),
        ({"HOLODECK_GRADER_TIMEOUT": ""}, DEFAULT_GRADER_TIMEOUT),
    ],
)
def test_default_grader_timeout(env: dict[str, str], expected: float) -> None:
    assert default_grader_timeout(env) == expected


@pytest.fixture
def fresh_imports() -> Iterator[None]:
    """Undo what loading does to the process: the cache, sys.path, sys.modules."""
    path, modules = list(sys.path), set(sys.modules)
    clear_grader_cache()
    yield
    clear_grader_cache()
    sys.path[:] = path
    for name in set(sys.modules) - modules:
        del sys.modules[name]


def write(folder: Path, name: str, source: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(textwrap.dedent(source), encoding="utf-8")


@pytest.mark.usefixtures("fresh_imports")
def test_load_grader_imports_from_the_agent_folder_and_caches(tmp_path: Path) -> None:
    write(
        tmp_path,
        "hd_tmp_graders.py",
        """
        from hd_tmp_helpers import TARGET
        LOADS = []
        LOADS.append(1)

        def check(ctx):
            return ctx.agent_response == TARGET
        """,
    )
    write(tmp_path, "hd_tmp_helpers.py", "TARGET = '206588'\n")

    grader = load_grader("hd_tmp_graders:check", tmp_path)
    again = load_grader("hd_tmp_graders:check", tmp_path)

    assert grader is again
    assert sys.path[0] == str(tmp_path.resolve())
    assert sys.modules["hd_tmp_graders"].LOADS == [1]
    result = run_code_grader(grader, metric(), context(), timeout=5)
    assert result.passed is True


@pytest.mark.usefixtures("fresh_imports")
def test_load_grader_errors_name_the_spec(tmp_path: Path) -> None:
    write(
        tmp_path,
        "hd_tmp_bad.py",
        """
        NOT_CALLABLE = 3

        def check(ctx):
            return True
        """,
    )
    write(tmp_path, "hd_tmp_boom.py", "raise RuntimeError('no config')\n")

    with pytest.raises(ImportError, match=r"grader 'hd_tmp_missing:check'.*hd_tmp_missing"):
        load_grader("hd_tmp_missing:check", tmp_path)
    with pytest.raises(AttributeError, match=r"grader 'hd_tmp_bad:chek'.*no attribute 'chek'"):
        load_grader("hd_tmp_bad:chek", tmp_path)
    with pytest.raises(TypeError, match=r"grader 'hd_tmp_bad:NOT_CALLABLE' is not callable"):
        load_grader("hd_tmp_bad:NOT_CALLABLE", tmp_path)
    with pytest.raises(ImportError, match=r"raised RuntimeError: no config"):
        load_grader("hd_tmp_boom:check", tmp_path)
    with pytest.raises(ImportError, match=r"not of the form"):
        load_grader("hd_tmp_bad.py", tmp_path)


@pytest.mark.usefixtures("fresh_imports")
def test_two_agents_same_named_graders_and_helpers_each_load_their_own(tmp_path: Path) -> None:
    # Each agent's grader imports a neighbour of a common name: each gets its own folder's.
    for name in ("a", "b"):
        write(tmp_path / name, "hd_tmp_helper.py", f"ANSWER = {name!r}\n")
        write(
            tmp_path / name,
            "hd_tmp_shared.py",
            "import hd_tmp_helper\n\ndef check(ctx):\n    return hd_tmp_helper.ANSWER\n",
        )

    first = load_grader("hd_tmp_shared:check", tmp_path / "a")
    second = load_grader("hd_tmp_shared:check", tmp_path / "b")
    assert first(None) == "a"  # type: ignore[arg-type]
    assert second(None) == "b"  # type: ignore[arg-type]
    # A third import of the first folder's module still finds the first's copy.
    clear_grader_cache()
    assert load_grader("hd_tmp_shared:check", tmp_path / "a") is first


@pytest.mark.usefixtures("fresh_imports")
def test_a_grader_that_cannot_load_fails_its_metric_with_the_import_error(
    tmp_path: Path,
) -> None:
    write(tmp_path, "hd_tmp_ok.py", "def check(ctx):\n    return True\n")
    loaded = load_graders(["hd_tmp_ok:check", "hd_tmp_absent:check"], tmp_path)
    assert run_code_grader(loaded["hd_tmp_ok:check"], metric(), context(), timeout=5).passed
    failed = run_code_grader(loaded["hd_tmp_absent:check"], metric(), context(), timeout=5)
    assert failed.passed is False and failed.error is not None
    assert "could not be loaded: ImportError" in failed.error and "hd_tmp_absent" in failed.error
