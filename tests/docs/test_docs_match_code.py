"""The docs describe what exists: every diagnostic code is documented, README keeps the two
set-up commands CI relies on, and the JSON Schema we print is valid."""

from __future__ import annotations

import json
import re
from pathlib import Path

from holodeck_lsp.cli import main
from holodeck_lsp.schema.codes import TITLES, Code

ROOT = Path(__file__).resolve().parents[2]


def test_every_code_is_documented_with_its_title() -> None:
    text = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    for code in Code:
        row = re.search(rf"^\| {code.value} \|[^|]*\| (.*) \|$", text, re.M)
        assert row is not None, f"{code.value} missing from docs/diagnostics.md"
        assert row.group(1) == TITLES[code]


def test_readme_has_exactly_the_two_setup_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for marker in ("main-command", "test-command"):
        block = re.search(
            rf"<!-- {marker} -->\n```bash\n(.*?)\n```\n<!-- /{marker} -->", text, re.S
        )
        assert block is not None, marker
        assert "\n" not in block.group(1).strip(), f"{marker} must be one pasteable line"
    assert "pytest" in text
    assert "test-command" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_schema_command_prints_a_json_schema_covering_turns(capsys: object) -> None:
    assert main(["--schema"]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    schema = json.loads(out)
    assert schema["$schema"].startswith("https://json-schema.org/")
    definitions = schema["$defs"]
    assert "turns" in definitions["TestCase"]["properties"]
    assert "ground_truth" in definitions["Turn"]["properties"]


def test_printed_schema_lets_other_editors_validate_agent_files(capsys: object) -> None:
    jsonschema = __import__("jsonschema")
    from ruamel.yaml import YAML

    main(["--schema"])
    schema = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    sample = YAML(typ="safe").load(ROOT / "sample" / "financial-assistant" / "agent.yaml")
    assert list(validator.iter_errors(sample)) == []
    sample["test_cases"][0]["turns"][0]["ground_truth"] = 25587
    sample["model"]["temprature"] = 0.2
    assert len(list(validator.iter_errors(sample))) == 2


def test_developers_guide_names_only_server_modules_that_exist() -> None:
    text = (ROOT / "DEVELOPERS.md").read_text(encoding="utf-8")
    block = re.search(r"### Inside `server/`\n```\n(.*?)\n```", text, re.S)
    assert block is not None
    server = ROOT / "holodeck_lsp" / "server"
    modules = {path.name for path in server.rglob("*.py")}
    named = set(re.findall(r"[a-z_]+\.py", block.group(1)))
    assert named and named <= modules, sorted(named - modules)
    packages = {path.name + "/" for path in server.rglob("*") if path.is_dir()} - {"__pycache__/"}
    assert packages <= set(re.findall(r"[a-z_]+/", block.group(1))), sorted(packages)


def test_the_exit_status_table_lists_every_status_of_every_command() -> None:
    """docs/cli.md's table has a row for each status some command returns, and a cell saying
    what it means (not "—") in the column of each command that returns it."""
    from holodeck_lsp import exit_codes

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    header = re.search(r"^\| Status \|(.*)\|$", text, re.M)
    assert header is not None
    columns = [cell.strip().strip("`") for cell in header.group(1).split("|")]
    tables = {
        "check": exit_codes.CHECK_EXIT_CODES,
        "run": exit_codes.RUN_EXIT_CODES,
        "compare": exit_codes.COMPARE_EXIT_CODES,
        "report": exit_codes.REPORT_EXIT_CODES,
        "runs": exit_codes.RUNS_EXIT_CODES,
        "import": exit_codes.IMPORT_EXIT_CODES,
        "merge": exit_codes.MERGE_EXIT_CODES,
    }
    assert set(tables) <= set(columns)
    for command, codes in tables.items():
        for status, _meaning in codes:
            row = re.search(rf"^\| {status} \|(.*)\|$", text, re.M)
            assert row is not None, f"no row for exit status {status}"
            cells = [cell.strip() for cell in row.group(1).split("|")]
            assert cells[columns.index(command)] not in ("", "—"), (command, status)
