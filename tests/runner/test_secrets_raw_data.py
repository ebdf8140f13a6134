"""The schema-free half of the secret rule (`data_secrets`, `environment_secrets`), which
`__case-names` uses instead of loading the agent: it must find every secret
`collect_secrets` finds in the validated agent. Planted secrets in each place a secret can
be: both paths leave out each case name holding one."""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

import holodeck_lsp.schema
from holodeck_lsp.checker.loader import LoadOptions, load_agent_file
from holodeck_lsp.commands.shell_completion.case_names import case_names
from holodeck_lsp.runner.secrets import (
    _CREDENTIAL_KEY,
    SECRET_FIELD_KEYS,
    Redactor,
    collect_secrets,
    data_secrets,
    environment_secrets,
)

#: Where each planted secret is written; every one of these places is a secret to a run.
PLANTED = {
    "model api_key": "sk-model-planted-1a",
    "judge model api_key": "sk-judge-planted-2b",
    "embedding api_key": "sk-embed-planted-3c",
    "store connection_string": "Server=db;Password=planted-4d",
    "store pass-through token": "tok-store-planted-5e",
    "keyword index password": "pw-index-planted-6f",
    "keyword index api_key": "key-index-planted-7a",
    "reranker api_key": "sk-rerank-planted-8b",
    "azure monitor connection_string": "InstrumentationKey=planted-9c",
    "mcp env": "mcp-env-planted-0d",
    "mcp config secret_key": "mcp-config-planted-1e",
    "substituted variable": "subst-planted-2f",
    "process API key": "proc-key-planted-3a",
}

AGENT = """\
name: planted
model: {{provider: openai, name: gpt-4o-mini, api_key: "{model api_key}"}}
instructions: {{inline: "You are helpful."}}
embedding_provider: {{provider: openai, name: embed, api_key: "{embedding api_key}"}}
evaluations:
  model: {{provider: openai, name: gpt-4o, api_key: "{judge model api_key}"}}
  metrics:
    - {{type: standard, metric: bleu}}
tools:
  - name: kb
    type: vectorstore
    description: d
    source: data/
    database:
      provider: qdrant
      url: http://q
      connection_string: "{store connection_string}"
      token: "{store pass-through token}"
  - name: law
    type: hierarchical_document
    description: d
    source: docs/*.md
    enable_reranking: true
    reranker_model: {{provider: openai, name: rerank, api_key: "{reranker api_key}"}}
    keyword_index:
      provider: opensearch
      endpoint: https://os
      index_name: i
      username: u
      password: "{keyword index password}"
      api_key: "{keyword index api_key}"
  - name: files
    type: mcp
    description: d
    command: npx
    args: ["-y", "server"]
    env: {{SERVICE_PASS: "{mcp env}", USER: "${{PLANTED_DB_USER}}"}}
    config: {{nested: {{secret_key: "{mcp config secret_key}"}}}}
observability:
  exporters:
    azure_monitor: {{enabled: true, connection_string: "{azure monitor connection_string}"}}
test_cases:
{cases}"""


def planted_agent(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PLANTED_DB_USER", PLANTED["substituted variable"])
    monkeypatch.setenv("PLANTED_VENDOR_API_KEY", PLANTED["process API key"])
    names = ["plain one", *(f"case with {secret} in it" for secret in PLANTED.values())]
    cases = "".join(f'  - name: "{name}"\n    input: q\n' for name in [*names, "plain two"])
    agent = folder / "agent.yaml"
    agent.write_text(AGENT.format(cases=cases, **PLANTED), encoding="utf-8")
    return agent


def test_a_name_holding_any_planted_secret_is_left_out_by_both_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = planted_agent(tmp_path, monkeypatch)
    loaded = load_agent_file(agent, options=LoadOptions(global_config=False, lints=False))
    assert loaded.agent is not None, loaded.errors  # the schema path applies: the file loads
    from_schema = Redactor(collect_secrets(loaded.agent, os.environ, [agent]))
    for place, secret in PLANTED.items():
        assert from_schema.text(secret) != secret, f"the run masks the {place}"
    assert list(case_names([str(agent)])) == ["plain one", "plain two"]


def test_the_raw_data_finds_every_secret_the_agent_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = planted_agent(tmp_path, monkeypatch)
    loaded = load_agent_file(agent, options=LoadOptions(global_config=False, lints=False))
    assert loaded.agent is not None and loaded.document is not None
    from_schema = set(collect_secrets(loaded.agent, os.environ, [agent]))
    raw = set(data_secrets(loaded.document.value)) | set(environment_secrets(os.environ, [agent]))
    assert from_schema <= raw
    assert set(PLANTED.values()) <= raw


def test_every_secret_field_of_the_schema_is_found_by_its_key() -> None:
    """A new `SecretStr` field must be named in SECRET_FIELD_KEYS (or match the credential
    pattern), or `__case-names` would offer a name holding its value."""
    fields = set()
    for module in pkgutil.walk_packages(holodeck_lsp.schema.__path__, "holodeck_lsp.schema."):
        for value in vars(importlib.import_module(module.name)).values():
            if isinstance(value, type) and issubclass(value, BaseModel):
                for name, info in value.model_fields.items():
                    if "SecretStr" in str(info.annotation):
                        fields.add(name)
    assert fields >= {"api_key", "connection_string", "password"}
    for name in fields:
        assert name in SECRET_FIELD_KEYS or _CREDENTIAL_KEY.search(name), name


def test_a_secret_inside_a_value_under_a_credential_key_counts() -> None:
    """Every string under such a key, at any depth, and an MCP `env:` mapping's values; keys
    are left alone (a variable's name is no secret)."""
    data = {
        "tools": [{"env": {"PASS": "env-value-1"}}],
        "x": {"api_key": ["list-value-2", {"deep": "deep-value-3"}], "token_count": 7},
        "connection_string": "conn-value-4",
        "plain": "not-a-secret",
    }
    assert data_secrets(data) == ["env-value-1", "list-value-2", "deep-value-3", "conn-value-4"]


def test_importing_the_redactor_loads_no_pydantic() -> None:
    code = (
        "import sys; import holodeck_lsp.runner.secrets; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic' "
        "or m.startswith(('holodeck_lsp.schema.', 'holodeck_lsp.reports.run.html'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['holodeck_lsp.schema.codes']"


def test_the_masking_of_a_secret_is_the_same_with_the_light_imports() -> None:
    # The HTML report's script escaping (moved beside it) is one of the forms masked.
    key = 'k<ey&"value'
    redactor = Redactor([key])
    assert redactor.text('k\\u003cey\\u0026\\"value') == "***"
