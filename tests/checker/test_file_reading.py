"""checker/file_reading.py and checker/json_reading.py: only regular files are read, each up to
the size limit, without ever blocking on a pipe; JSON too deep for `json.loads` is a
JSONDecodeError naming the place, not a RecursionError."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from holodeck_lsp.checker.file_reading import (
    DEFAULT_LIMIT_MB,
    DEFAULT_YAML_LIMIT_MB,
    LIMIT_VARIABLE,
    FileTooLarge,
    NotARegularFile,
    max_file_bytes,
    read_file_bytes,
    read_file_text,
)
from holodeck_lsp.checker.json_reading import JsonTooDeep, loads_json, read_json_file

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


def test_a_regular_file_reads_as_path_read_text_does(tmp_path: Path) -> None:
    file = tmp_path / "a.yaml"
    file.write_bytes(b"\xef\xbb\xbfa: 1\r\nb: 2\rc: 3\n")
    assert read_file_text(file, "utf-8-sig") == file.read_text(encoding="utf-8-sig")
    assert read_file_bytes(file) == file.read_bytes()


@needs_fifo
def test_a_named_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "agent.yaml"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            read_file_text(fifo)
        except BaseException as error:  # handed to the test's thread
            outcome.append(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(5)
    assert not reader.is_alive(), "reading a FIFO blocked"
    [error] = outcome
    assert isinstance(error, NotARegularFile) and isinstance(error, OSError)
    assert str(fifo) in str(error) and "named pipe" in str(error)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_a_link_to_a_device_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "cases.yaml"
    link.symlink_to("/dev/zero")
    with pytest.raises(NotARegularFile, match="character device"):
        read_file_bytes(link)


def test_a_folder_is_the_usual_error(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        read_file_bytes(tmp_path)


def test_a_file_over_the_limit_names_the_file_the_limit_and_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "big.yaml"
    with big.open("wb") as handle:
        handle.truncate(3_000_000)  # sparse: nothing is written
    monkeypatch.setenv(LIMIT_VARIABLE, "2")
    with pytest.raises(FileTooLarge) as caught:
        read_file_bytes(big)
    message = str(caught.value)
    assert str(big) in message and "3.0 MB" in message and "2.0 MB" in message
    assert f"{LIMIT_VARIABLE}=4" in message
    monkeypatch.setenv(LIMIT_VARIABLE, "4")
    assert len(read_file_bytes(big)) == 3_000_000


@pytest.mark.parametrize("value", ["", "lots", "-1", "0", "inf", "nan"])
def test_a_limit_that_is_not_a_positive_number_keeps_the_default(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LIMIT_VARIABLE, value)
    assert max_file_bytes() == DEFAULT_LIMIT_MB * 1_000_000
    assert max_file_bytes(yaml=True) == DEFAULT_YAML_LIMIT_MB * 1_000_000


def test_the_variable_sets_the_limit_of_yaml_files_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(LIMIT_VARIABLE, raising=False)
    agent = tmp_path / "agent.yaml"
    with agent.open("wb") as handle:
        handle.truncate(DEFAULT_YAML_LIMIT_MB * 1_000_000 + 1)
    limit = f"{DEFAULT_YAML_LIMIT_MB * 1_000_000:,}-byte limit"
    with pytest.raises(FileTooLarge, match=f"over the {limit}"):
        read_file_text(agent, yaml=True)
    assert len(read_file_text(agent)) == DEFAULT_YAML_LIMIT_MB * 1_000_000 + 1
    monkeypatch.setenv(LIMIT_VARIABLE, "17")
    assert len(read_file_text(agent, yaml=True)) == DEFAULT_YAML_LIMIT_MB * 1_000_000 + 1


def test_json_nested_past_the_recursion_limit_is_a_decode_error_at_the_place(
    tmp_path: Path,
) -> None:
    report = tmp_path / "report.json"
    report.write_text('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    with pytest.raises(json.JSONDecodeError) as caught:
        read_json_file(report)
    assert isinstance(caught.value, JsonTooDeep)
    assert (caught.value.lineno, caught.value.colno) == (1, 7 + 500 - 1)
    assert "more than 500 levels" in caught.value.msg


def test_brackets_in_strings_do_not_count() -> None:
    text = '["' + "[" * 5000 + '", ' + "[" * 2000 + "]" * 2000 + "]"
    with pytest.raises(JsonTooDeep) as caught:
        loads_json(text)
    assert caught.value.pos == text.index("[", 5005) + 500 - 1
    assert loads_json(b'{"a": "[[["}') == {"a": "[[["}


#: Files that still read with `Path.read_text` / `read_bytes` / `open()`, and why: package
#: data shipped with holodeck-lsp, its own cache, and writes.
_OTHER_READERS = {
    "runner/pricing/price_list.py": "the price list shipped in the package",
    "reports/run/html/__init__.py": "the report page's templates, in the package",
    "checker/graders/trusted.py": "the probe's source, in the package",
    "importers/convfinqa/suite_files/tools.py": "copied into suites, runs without holodeck-lsp",
    "importers/bfcl/suite_files/bfcl_state.py": "copied into suites, runs without holodeck-lsp",
    "importers/bfcl/importer.py": "the suite files shipped in the package",
    "commands/import_/convfinqa.py": "the suite files shipped in the package",
    "server/early_handshake.py": "its own cache of initialize answers (XDG_CACHE_HOME)",
    "runner/run_history/journal.py": "appends to and truncates its own journal",
    "commands/run/command_clock.py": "the kernel's /proc/self/stat and /proc/uptime",
}


#: Other projects' code, copied whole into suites (their own file handling, run from there).
_COPIED_TREES = ("importers/tau2/suite_files/tau2_bench/",)


def test_every_other_file_is_read_through_the_one_reader() -> None:
    """A new `Path.read_text()`, `read_bytes()` or `open()` of a workspace file would bring
    back the hang on a pipe and the unbounded read: use checker/file_reading.py."""
    import ast

    package = Path(__file__).resolve().parents[2] / "holodeck_lsp"
    found: list[str] = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).as_posix()
        if relative in _OTHER_READERS or relative == "checker/file_reading.py":
            continue
        if relative.startswith(_COPIED_TREES):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in {"read_text", "read_bytes", "open"} and not (
                isinstance(func, ast.Attribute) and name == "open" and _is_os_or_class(func)
            ):
                found.append(f"{relative}:{node.lineno} {name}()")
    assert found == []


def _is_os_or_class(func: object) -> bool:
    """`os.open` (file_reading's own), `RunSession.open(...)`-style constructors: not reads."""
    value = getattr(func, "value", None)
    name = getattr(value, "id", "") or getattr(value, "attr", "")
    return name == "os" or name[:1].isupper()
