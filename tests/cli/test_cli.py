"""`holodeck-lsp` end to end: arguments, discovery, exit codes, formats, the installed script.

Most tests replace the loader with a stub (`fake_loader`) so the command's own logic — exit
codes, --strict, grouping of include diagnostics, --output — is tested on its own; the tests
marked `real loader` run `holodeck_lsp.checker.loader` on real agent files.
"""

from __future__ import annotations

import json
import subprocess
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from holodeck_lsp import __version__
from holodeck_lsp.checker.diagnostics import Diagnostic, Range, Severity
from holodeck_lsp.checker.discovery import PathsNotFoundError, find_agent_files
from holodeck_lsp.cli import main
from holodeck_lsp.schema.codes import Code

VALID = """\
name: demo
model: {provider: openai, name: gpt-4o-mini}
instructions: {inline: "You are helpful."}
test_cases:
  - name: t1
    input: "What is 2+2?"
    ground_truth: "4"
"""

FAULTY = (
    VALID
    + """\
  - name: t2
    input: "Which number?"
    ground_truth: 25587
  - name: t3
    turns: []
"""
)

SCRIPT = Path(sys.executable).with_name("holodeck-lsp")


def write(path: Path, content: str = VALID) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return path


# --- commands that need no loader ------------------------------------------------------------


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"{__version__}\n"


def test_run_dispatches_to_the_runner(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "no-such-agent.yaml"]) == 2  # tests/runner covers the command itself
    assert "no such file or directory: no-such-agent.yaml" in capsys.readouterr().err


def test_help_returns_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "--check" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["--check"],
        ["--format", "json"],
        ["--strict"],
        ["--check", "a.yaml", "--format", "xml"],
        ["--check", "a.yaml", "--schema"],
    ],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert "usage:" in capsys.readouterr().err


def test_nonexistent_paths_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    present = write(tmp_path / "agent.yaml")
    gone, also_gone = tmp_path / "nope.yaml", tmp_path / "missing-dir"
    assert main(["--check", str(present), str(gone), str(also_gone)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"no such file or directory: {gone}" in captured.err
    assert f"no such file or directory: {also_gone}" in captured.err


# --- discovery -------------------------------------------------------------------------------


def test_directory_discovery_is_recursive_sorted_and_skips_tool_trees(tmp_path: Path) -> None:
    for name in [
        "agent.yaml",
        "b/support.agent.yaml",
        "a/agent.yaml",
        "a/deep/x.agent.yaml",
        "a/notes.yaml",
        "a/.agent.yaml",
        ".hidden/agent.yaml",
        "node_modules/pkg/agent.yaml",
        ".venv/agent.yaml",
        "venv/agent.yaml",
        "a/__pycache__/agent.yaml",
    ]:
        write(tmp_path / name)
    found = find_agent_files([tmp_path])
    assert [path.relative_to(tmp_path).as_posix() for path in found] == [
        "a/agent.yaml",
        "a/deep/x.agent.yaml",
        "agent.yaml",
        "b/support.agent.yaml",
    ]


def test_files_are_taken_as_given_in_order_and_once(tmp_path: Path) -> None:
    custom = write(tmp_path / "suite.yaml")  # any name, when named explicitly
    nested = write(tmp_path / "d" / "agent.yaml")
    assert find_agent_files([custom, tmp_path / "d", nested]) == [custom, nested]


def test_an_explicit_hidden_directory_is_searched(tmp_path: Path) -> None:
    inside = write(tmp_path / ".ci" / "agent.yaml")
    assert find_agent_files([tmp_path / ".ci"]) == [inside]


def test_discovery_names_every_missing_path(tmp_path: Path) -> None:
    with pytest.raises(PathsNotFoundError) as raised:
        find_agent_files([tmp_path / "x", tmp_path, tmp_path / "y"])
    assert raised.value.paths == (tmp_path / "x", tmp_path / "y")


def test_a_directory_without_agents_fails_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_loader: FakeLoader
) -> None:
    # Checking nothing is not a pass: a CI job pointed at the wrong folder must go red.
    assert main(["--check", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert f"no agent files found under {tmp_path}" in captured.err
    assert captured.out == ""
    assert fake_loader.calls == []


# --- exit codes and formats, with a stub loader ----------------------------------------------


@dataclass
class FakeResult:
    diagnostics: list[Diagnostic]
    agent: object = None
    env_forms: dict[str, str] = field(default_factory=dict)


@dataclass
class FakeLoader:
    """Stands in for `holodeck_lsp.checker.loader`: diagnostics by file name, calls recorded."""

    by_name: dict[str, Callable[[Path], list[Diagnostic]]] = field(default_factory=dict)
    calls: list[tuple[Path, bool]] = field(default_factory=list)

    def load_agent_file(self, path: Path, *, trusted: bool = False) -> FakeResult:
        self.calls.append((path, trusted))
        make = self.by_name.get(path.name)
        return FakeResult(make(path) if make else [])


@pytest.fixture
def fake_loader(monkeypatch: pytest.MonkeyPatch) -> FakeLoader:
    loader = FakeLoader()
    module = types.ModuleType("holodeck_lsp.checker.loader")
    module.load_agent_file = loader.load_agent_file  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "holodeck_lsp.checker.loader", module)
    return loader


def finding(
    severity: Severity, code: Code, *, file: str | None = None
) -> Callable[[Path], list[Diagnostic]]:
    def make(path: Path) -> list[Diagnostic]:
        return [Diagnostic(file or str(path), Range.of(2, 4, 2, 9), severity, code, "bad")]

    return make


def test_clean_files_exit_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_loader: FakeLoader
) -> None:
    write(tmp_path / "agent.yaml")
    assert main(["--check", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "0 errors, 0 warnings in 1 file\n"
    assert fake_loader.calls == [(tmp_path / "agent.yaml", False)]


def test_an_error_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_loader: FakeLoader
) -> None:
    agent = write(tmp_path / "agent.yaml")
    fake_loader.by_name["agent.yaml"] = finding(Severity.ERROR, Code.WRONG_TYPE)
    assert main(["--check", str(agent)]) == 2
    assert capsys.readouterr().out.splitlines() == [
        f"{agent}:3:5: error: bad [HD102]",
        "1 error, 0 warnings in 1 file",
    ]


@pytest.mark.parametrize(("strict", "expected"), [(False, 0), (True, 2)])
def test_warnings_fail_only_with_strict(
    tmp_path: Path, fake_loader: FakeLoader, strict: bool, expected: int
) -> None:
    agent = write(tmp_path / "agent.yaml")
    fake_loader.by_name["agent.yaml"] = finding(Severity.WARNING, Code.UNDECLARED_TOOL)
    assert main(["--check", str(agent), *(["--strict"] if strict else [])]) == expected


def test_hints_never_fail_even_strict(tmp_path: Path, fake_loader: FakeLoader) -> None:
    agent = write(tmp_path / "agent.yaml")
    fake_loader.by_name["agent.yaml"] = finding(Severity.HINT, Code.MISSPELT_MATCHER)
    assert main(["--check", str(agent), "--strict"]) == 0


def test_include_diagnostics_are_reported_under_the_included_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_loader: FakeLoader
) -> None:
    agent = write(tmp_path / "agent.yaml")
    cases = write(tmp_path / "cases.yaml", "[]\n")
    fake_loader.by_name["agent.yaml"] = finding(Severity.ERROR, Code.EMPTY_TURNS, file=str(cases))
    assert main(["--check", str(agent), "--format", "json", "--trust"]) == 2
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert [(f["path"], len(f["diagnostics"])) for f in document["files"]] == [
        (str(agent), 0),
        (str(cases), 1),
    ]
    assert document["summary"] == {"files": 2, "errors": 1, "warnings": 0}
    # Machine formats keep stdout parseable; the summary goes to stderr.
    assert captured.err == "1 error, 0 warnings in 2 files\n"
    assert fake_loader.calls == [(agent, True)]


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_output_file_receives_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_loader: FakeLoader, fmt: str
) -> None:
    agent = write(tmp_path / "agent.yaml")
    fake_loader.by_name["agent.yaml"] = finding(Severity.ERROR, Code.WRONG_TYPE)
    target = tmp_path / f"report.{fmt}"
    assert main(["--check", str(agent), "--format", fmt, "--output", str(target)]) == 2
    assert capsys.readouterr().out == ""
    assert "HD102" in target.read_text(encoding="utf-8")


def test_unwritable_output_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_loader: FakeLoader
) -> None:
    agent = write(tmp_path / "agent.yaml")
    assert main(["--check", str(agent), "--output", str(tmp_path / "no" / "such" / "f")]) == 2
    assert "cannot write" in capsys.readouterr().err


# --- the real loader -------------------------------------------------------------------------


@pytest.fixture
def real_loader() -> None:
    pytest.importorskip("holodeck_lsp.checker.loader")


@pytest.mark.usefixtures("real_loader")
def test_real_valid_file_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    agent = write(tmp_path / "agent.yaml")
    assert main(["--check", str(agent)]) == 0
    assert capsys.readouterr().out == "0 errors, 0 warnings in 1 file\n"


@pytest.mark.usefixtures("real_loader")
def test_real_faulty_file_fails_with_positions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = write(tmp_path / "agent.yaml", FAULTY)
    assert main(["--check", str(agent), "--format", "json"]) == 2
    (file,) = json.loads(capsys.readouterr().out)["files"]
    found = {(d["code"], d["range"]["start"]["line"]) for d in file["diagnostics"]}
    assert ("HD102", 9) in found  # `ground_truth: 25587`, 0-based line 9
    assert "HD110" in {code for code, _ in found}


@pytest.mark.usefixtures("real_loader")
def test_real_directory_discovery(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "ok" / "agent.yaml")
    write(tmp_path / "bad" / "faulty.agent.yaml", FAULTY)
    write(tmp_path / "node_modules" / "agent.yaml", FAULTY)  # skipped
    assert main(["--check", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    assert "faulty.agent.yaml:10:" in out and "[HD102]" in out
    assert "node_modules" not in out
    assert out.endswith(" in 2 files\n")


@pytest.mark.usefixtures("real_loader")
def test_real_strict_fails_on_a_lint_warning(tmp_path: Path) -> None:
    # An expected tool that matches no declared tool is a warning (HD201), never an error.
    agent = write(tmp_path / "agent.yaml", VALID + "    expected_tools: [serach]\n")
    assert main(["--check", str(agent)]) == 0
    assert main(["--check", str(agent), "--strict"]) == 2


@pytest.mark.usefixtures("real_loader")
def test_real_include_faults_are_reported_in_the_included_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = VALID.split("test_cases:")[0]
    write(tmp_path / "agent.yaml", header + "test_cases_file: cases.yaml\n")
    write(tmp_path / "cases.yaml", "- name: c1\n  input: hi\n  ground_truth: 12\n")
    assert main(["--check", str(tmp_path / "agent.yaml")]) == 2
    assert capsys.readouterr().out.splitlines() == [
        f"{tmp_path / 'cases.yaml'}:3:17: error: " + _message_of("HD102", tmp_path),
        "1 error, 0 warnings in 2 files",
    ]


def _message_of(code: str, tmp_path: Path) -> str:
    """The loader's wording of the cause is its own; compare the rest of the line around it:
    the cause first, then the full location."""
    from holodeck_lsp.checker.loader import load_agent_file

    (diagnostic,) = load_agent_file(tmp_path / "agent.yaml").diagnostics
    assert diagnostic.code == code
    return f"{diagnostic.message} (in test case 'c1', `ground_truth`) [{code}]"


def test_schema(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("holodeck_lsp.schema.agent")
    assert main(["--schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["title"] == "HoloDeck agent.yaml"
    assert {"name", "model", "test_cases"} <= set(schema["properties"])


# --- the installed script --------------------------------------------------------------------


def run_script(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    if not SCRIPT.exists():
        pytest.skip("holodeck-lsp is not installed in this environment (pip install -e .)")
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, cwd=cwd, timeout=60, check=False
    )


def test_script_version_without_importing_pydantic() -> None:
    assert run_script("--version").stdout == f"{__version__}\n"
    probe = "import sys, holodeck_lsp.cli; print(sorted(m for m in sys.modules if 'pydantic' in m))"
    imported = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert imported.stdout == "[]\n"


def test_script_missing_path_exits_2(tmp_path: Path) -> None:
    done = run_script("--check", "nowhere.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert "no such file or directory: nowhere.yaml" in done.stderr


@pytest.mark.usefixtures("real_loader")
def test_script_checks_a_faulty_file(tmp_path: Path) -> None:
    write(tmp_path / "agent.yaml", FAULTY)
    done = run_script("--check", "agent.yaml", "--format", "github", cwd=tmp_path)
    assert done.returncode == 2
    assert "::error file=agent.yaml,line=10," in done.stdout
    assert "title=HD102::" in done.stdout


def test_an_unknown_command_gets_the_closest_name_and_every_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from holodeck_lsp.cli import COMMANDS

    assert main(["chek"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'chek'; did you mean `check`?" in err
    assert all(command.name in err for command in COMMANDS)
    assert main(["import"]) == 2
    assert "did you mean" not in capsys.readouterr().err
