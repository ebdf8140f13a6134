"""`holodeck-lsp schema` for yaml-language-server users (docs/editors/README.md): the printed
JSON Schema, checked with the jsonschema package, accepts every agent file of sample/ and
rejects a broken copy of one (a misspelt provider, a key that does not exist)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from tests.server.lsp_client import installed_server

REPO = Path(__file__).resolve().parents[2]
AGENTS = sorted((REPO / "sample").rglob("agent.yaml"))


@pytest.fixture(scope="module")
def validator() -> Any:
    printed = subprocess.run(
        [installed_server(), "schema"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    schema = json.loads(printed)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@pytest.mark.parametrize("agent", AGENTS, ids=lambda p: str(p.relative_to(REPO)))
def test_the_schema_accepts_the_sample(validator: Any, agent: Path) -> None:
    document = yaml.safe_load(agent.read_text(encoding="utf-8"))
    errors = [error.message for error in validator.iter_errors(document)]
    assert errors == [], errors


def test_the_schema_rejects_a_broken_copy(validator: Any) -> None:
    assert AGENTS, "no agent.yaml under sample/"
    document = yaml.safe_load(AGENTS[0].read_text(encoding="utf-8"))
    document["model"]["provider"] = "olama"
    document["test_cases"][0]["groundtruth"] = "1"
    errors = list(validator.iter_errors(document))
    paths = {tuple(error.absolute_path) for error in errors}
    assert ("model", "provider") in paths, [e.message for e in errors]
    assert any(path[:1] == ("test_cases",) for path in paths), [e.message for e in errors]
