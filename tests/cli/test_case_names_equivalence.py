"""`__case-names` reads names from the YAML alone; the loader (schema, validation) is what a
run reads. For every agent file the loader accepts they must give the same names, in the same
order, with the same names left out for secrets: the repository's corpora, the sample, the
ConvFinQA yardstick bench uses, and files written here for each YAML rule the two must share
(duplicate keys, merge keys, `${VAR}`, each include form)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from holodeck_lsp.checker.discovery import find_agent_files
from holodeck_lsp.checker.loader import LoadOptions, load_agent_file
from holodeck_lsp.commands.shell_completion.case_names import case_names
from holodeck_lsp.runner.secrets import Redactor, collect_secrets

REPO = Path(__file__).resolve().parents[2]
CORPORA = [REPO / "tests", REPO / "sample"]

HEADER = """\
name: demo
model: {provider: openai, name: gpt-4o-mini}
instructions: {inline: "You are helpful."}
"""


def loader_names(file: Path) -> list[str] | None:
    """The names as the loader path gives them (what `__case-names` did before it read the
    YAML alone): None when the loader rejects the file."""
    options = LoadOptions(trusted=False, global_config=False, lints=False)
    loaded = load_agent_file(file, options=options)
    agent = loaded.agent
    if agent is None:
        return None
    redactor = Redactor(collect_secrets(agent, os.environ, [file, *loaded.dependencies]))
    names: list[str] = []
    for case in agent.test_cases or []:
        if case.name and redactor.text(case.name) == case.name and case.name not in names:
            names.append(case.name)
    return names


def assert_same_names(files: list[Path]) -> int:
    """Asserts both paths agree on every file the loader accepts; how many it accepted."""
    loaded = 0
    for file in files:
        expected = loader_names(file)
        if expected is None:
            continue
        loaded += 1
        assert list(case_names([str(file)])) == expected, file
    return loaded


def test_the_repository_corpora_and_sample() -> None:
    files = find_agent_files(CORPORA)
    assert len(files) >= 15
    # Most corpus files are there for their faults; these load: the sample, valid-convfinqa,
    # valid-include (an include), judged-metrics.
    assert assert_same_names(files) >= 4


def test_the_corpora_with_their_variables_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the corpora's `${VAR}`s set (to secret-looking values) more files load, and
    names built from a variable are left out by both paths."""
    for file in find_agent_files(CORPORA):
        for name in _variables(file):
            monkeypatch.setenv(name, f"value-of-{name.lower()}")
    assert assert_same_names(find_agent_files(CORPORA)) >= 4


def test_the_bench_yardstick(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from shared_folder import default_shared
    finally:
        sys.path.remove(str(REPO / "bench"))
    shared = default_shared()
    tool = shared / "tools" / "gen_convfinqa_agent.py"
    source = shared / "data" / "convfinqa" / "convfinqa_dataset_dev.json"
    if not (tool.is_file() and source.is_file()):
        pytest.skip(f"no shared folder with the ConvFinQA generator at {shared}")
    agent = tmp_path / "c100" / "agent.yaml"
    command = [sys.executable, str(tool), "--source", str(source), "--cases", "100"]
    subprocess.run([*command, "--out", str(agent)], check=True, capture_output=True)
    assert assert_same_names([agent]) == 1
    assert len(list(case_names([str(agent)]))) == 100


def _case(name: str) -> str:
    return f'  - name: {name}\n    input: "q"\n    ground_truth: "4"\n'


#: Agent files (and their includes) for each rule of where the names are; all load.
WRITTEN: dict[str, dict[str, str]] = {
    "duplicate test_cases: the last wins": {
        "agent.yaml": f"{HEADER}test_cases:\n{_case('first list')}test_cases:\n{_case('last')}",
    },
    "duplicate name in a case: the last wins": {
        "agent.yaml": f'{HEADER}test_cases:\n  - name: a1\n    name: a2\n    input: "q"\n',
    },
    "cases and names from merge keys": {
        "agent.yaml": HEADER
        + "test_cases:\n"
        + "  - &base {name: merged, input: q, ground_truth: '4'}\n"
        + "  - <<: [{name: from merge}, *base]\n"
        + "  - {<<: *base, name: own}\n"
        + "  - {<<: *base, input: other}\n",
    },
    "a list of cases through an anchor, the key repeated": {
        "agent.yaml": f"{HEADER}test_cases: &cases\n{_case('anchored')}test_cases: *cases\n",
    },
    "repeated names, once each": {
        "agent.yaml": f"{HEADER}test_cases:\n{_case('same')}{_case('other')}{_case('same')}",
    },
    "unnamed and odd names": {
        "agent.yaml": HEADER
        + "test_cases:\n"
        + '  - input: "no name"\n'
        + _case("'with: colon'")
        + _case('"tab\\there"')
        + _case("'yes'")
        + _case("'2024'")
        + _case("café ✓"),
    },
    "an empty suite": {"agent.yaml": f"{HEADER}test_cases: []\n"},
    "no suite at all": {"agent.yaml": HEADER},
    "an include, list form": {
        "agent.yaml": f"{HEADER}test_cases_file: cases.yaml\n",
        "cases.yaml": _case("listed") + _case("second"),
    },
    "an include, mapping form": {
        "agent.yaml": f"{HEADER}test_cases_file: cases.yaml\n",
        "cases.yaml": f"description: x\ntest_cases:\n{_case('mapped')}",
    },
    "an include in a sub-folder, relative to the agent file": {
        "agent.yaml": f"{HEADER}test_cases_file: suites/cases.yaml\n",
        "suites/cases.yaml": _case("in sub"),
    },
    "an empty include": {
        "agent.yaml": f"{HEADER}test_cases_file: cases.yaml\n",
        "cases.yaml": "{}\n",
    },
    "an include named through a variable": {
        "agent.yaml": f"{HEADER}test_cases_file: ${{CASES_FILE_FOR_TEST}}\n",
        "cases.yaml": _case("via variable"),
    },
    "tool arguments named like credentials are test data, not secrets": {
        "agent.yaml": HEADER
        + "tools:\n"
        + "  - {name: lookup, type: function, file: tools.py, function: lookup, description: d}\n"
        + "test_cases:\n"
        + "  - name: revenue in 2007\n"
        + '    input: "q"\n'
        + "    expected_tools:\n"
        + "      - name: lookup\n"
        + "        args: {sort_key: revenue, page_token: '2007', api_key: {regex: 'rev.*'}}\n",
        "tools.py": "def lookup(sort_key: str, page_token: str, api_key: str) -> str:\n"
        + "    return ''\n",
    },
    "names from variables": {
        "agent.yaml": f"{HEADER}test_cases:\n{_case('plain')}{_case('with ${CASE_PART}')}"
        + _case("${SHORT}"),
    },
}


@pytest.mark.parametrize("files", WRITTEN.values(), ids=WRITTEN.keys())
def test_files_written_for_each_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]
) -> None:
    monkeypatch.setenv("CASES_FILE_FOR_TEST", "cases.yaml")
    monkeypatch.setenv("CASE_PART", "part-from-env")
    monkeypatch.setenv("SHORT", "ab")  # too short to be a secret: the name is offered
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    agent = tmp_path / "agent.yaml"
    assert loader_names(agent) is not None, "written to load"
    assert_same_names([agent])


def test_the_written_files_cover_what_they_claim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rules above do decide something: the names they give (the loader's)."""
    monkeypatch.setenv("CASES_FILE_FOR_TEST", "cases.yaml")
    monkeypatch.setenv("CASE_PART", "part-from-env")
    monkeypatch.setenv("SHORT", "ab")
    got = {}
    for title, files in WRITTEN.items():
        folder = tmp_path / str(len(got))
        for name, text in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text, encoding="utf-8")
        got[title] = list(case_names([str(folder / "agent.yaml")]))
    assert got["duplicate test_cases: the last wins"] == ["last"]
    assert got["duplicate name in a case: the last wins"] == ["a2"]
    assert got["cases and names from merge keys"] == ["merged", "from merge", "own"]
    assert got["a list of cases through an anchor, the key repeated"] == ["anchored"]
    assert got["repeated names, once each"] == ["same", "other"]
    assert got["unnamed and odd names"] == ["with: colon", "tab\there", "yes", "2024", "café ✓"]
    assert got["an include, mapping form"] == ["mapped"]
    assert got["an include in a sub-folder, relative to the agent file"] == ["in sub"]
    assert got["an include named through a variable"] == ["via variable"]
    assert got["names from variables"] == ["plain", "ab"]  # the secret one is left out
    assert got["tool arguments named like credentials are test data, not secrets"] == [
        "revenue in 2007"
    ]


def test_a_file_the_schema_rejects_still_gives_its_names(tmp_path: Path) -> None:
    """The deliberate difference: a file that parses but does not validate (here an unknown
    key and a wrong type) gives its string names; non-string names are never offered."""
    agent = tmp_path / "agent.yaml"
    agent.write_text(
        f"{HEADER}tempreature: 2\ntest_cases:\n{_case('kept')}{_case('12')}{_case('[a, b]')}"
        + _case("'  '"),
        encoding="utf-8",
    )
    assert loader_names(agent) is None
    assert list(case_names([str(agent)])) == ["kept"]


def test_both_case_sources_give_the_agent_files_list(tmp_path: Path) -> None:
    """`test_cases` and `test_cases_file` both set: the loader reads `test_cases` (and the
    schema flags the pair); so does completion."""
    (tmp_path / "cases.yaml").write_text(_case("from the include"), encoding="utf-8")
    agent = tmp_path / "agent.yaml"
    agent.write_text(
        f"{HEADER}test_cases_file: cases.yaml\ntest_cases:\n{_case('inline')}", encoding="utf-8"
    )
    assert list(case_names([str(agent)])) == ["inline"]


def _variables(file: Path) -> set[str]:
    from holodeck_lsp.checker.yaml_document import ENV_REFERENCE

    names = set()
    for path in [file, *file.parent.glob("*.yaml")]:
        names.update(m.group(1) for m in ENV_REFERENCE.finditer(path.read_text(encoding="utf-8")))
    return names
