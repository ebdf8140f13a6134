"""Keep credentials out of everything a run writes: reports, cassettes and logs.

Secrets are the values of: every `SecretStr` field of the agent (`model.api_key`, evaluation
and embedding models, vector-store keys, …), every `${VAR}` the agent files substitute, every
MCP server's `env:` value, and every `*_API_KEY` / `*_TOKEN` / `*_SECRET` / `*_PASSWORD`
variable of this process. Each occurrence becomes `***`.

`collect_secrets` takes them from the validated agent (the schema's `SecretStr` fields);
`environment_secrets` (the `${VAR}` values and the variables) and `data_secrets` (the same
values found by key in the raw YAML data, a superset) need no schema, for `__case-names`,
which runs on every Tab and must not load pydantic. Importing this module loads neither
pydantic nor the schema.

Very short values (under 4 characters) are not treated as secrets: masking them would mangle
ordinary text (numbers in answers), and no real credential is that short — the rule the
loader's diagnostics follow too (checker/env_masking.py).
"""

from __future__ import annotations

import html
import json
import logging
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from holodeck_lsp.checker.env_masking import MIN_SECRET_LENGTH
from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.checker.yaml_convert import ENV_REFERENCE
from holodeck_lsp.reports.run.script_json import embed_json

if TYPE_CHECKING:
    # Type-level only: `Redactor`, `environment_secrets` and `data_secrets` are imported by
    # the completion scripts' `__case-names` on every Tab, which must not pay for pydantic
    # and the schema. `collect_secrets` imports them when it runs.
    from pydantic import BaseModel

    from holodeck_lsp.schema.agent import Agent
    from holodeck_lsp.schema.results import TestReport

MASK = "***"
_SECRET_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
_CREDENTIAL_KEY = re.compile(r"key|token|secret|password", re.IGNORECASE)
#: The agent-file keys of the schema's `SecretStr` fields that `_CREDENTIAL_KEY` does not
#: match (`api_key` and `password` it does): `data_secrets` finds their values by key.
#: tests/runner/test_secrets_raw_data.py checks every `SecretStr` field of the schema is named
#: here or matched by the pattern.
SECRET_FIELD_KEYS = frozenset({"connection_string"})
#: An MCP tool's `env:`: every value is a secret (`collect_secrets` takes `tool.env`).
_ENV_KEY = "env"
_ARGS_KEY = "args"
_Model = TypeVar("_Model", bound="BaseModel")


class Redactor:
    """Replaces every known secret by `***` in text and in JSON-like data."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        values = {s for s in secrets if len(s) >= MIN_SECRET_LENGTH}
        # The forms a secret takes once escaped by the JSON, XML, Markdown and HTML writers.
        forms = set(values)
        for value in values:
            forms.add(json.dumps(value, ensure_ascii=False)[1:-1])
            forms.add(json.dumps(value)[1:-1])
            forms.add(html.escape(value, quote=True))
            # The HTML report's embedded JSON escapes <, >, & and U+2028/9 once more.
            forms.add(embed_json(json.dumps(value, ensure_ascii=False)[1:-1]))
        # Longest first, so a secret containing another is masked whole.
        self._secrets = sorted(forms, key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def __or__(self, other: Redactor) -> Redactor:
        """A redactor masking the secrets of both."""
        both = Redactor()
        both._secrets = sorted(set(self._secrets) | set(other._secrets), key=len, reverse=True)
        return both

    def covers(self, other: Redactor) -> bool:
        return set(other._secrets) <= set(self._secrets)

    def text(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

    def data(self, value: Any) -> Any:
        """A copy of JSON-like `value` with secrets masked in every string (keys included)."""
        if not self._secrets:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.data(k): self.data(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.data(item) for item in value]
        return value

    def report(self, report: TestReport) -> TestReport:
        """The report with secrets masked in every field (before any renderer escapes them)."""
        if not self._secrets:
            return report
        return self.model(report)

    def model(self, value: _Model) -> _Model:
        """A copy of a result model (`TestReport`, `TestResult`, `TurnResult`, `Cassette`, …)
        with secrets masked in every field."""
        if not self._secrets:
            return value
        return type(value).model_validate(self.data(value.model_dump(mode="json")))


def collect_secrets(
    agent: Agent,
    env: Mapping[str, str],
    files: Iterable[Path] = (),
    texts: Iterable[str] = (),
) -> list[str]:
    """Every secret value the run could leak (see the module docstring). `files` are the
    agent file and its included test-case file, scanned for `${VAR}` references; `texts`
    are such files' text already at hand (an editor's unsaved buffer)."""
    from holodeck_lsp.schema.tools import MCPTool  # see the TYPE_CHECKING block

    found = _field_secrets(agent)
    for tool in agent.tools or []:
        if isinstance(tool, MCPTool) and tool.env:
            found.extend(tool.env.values())
    found.extend(environment_secrets(env, files, texts))
    return found


def environment_secrets(
    env: Mapping[str, str], files: Iterable[Path] = (), texts: Iterable[str] = ()
) -> list[str]:
    """The secrets that come from the environment rather than the agent's fields: the value
    of every `${VAR}` referenced in `files` / `texts`, and every `*_API_KEY` / `*_TOKEN` /
    `*_SECRET` / `*_PASSWORD` variable of `env`. Needs no schema."""
    found: list[str] = []
    sources = list(texts)
    for path in files:
        try:
            sources.append(read_file_text(path, "utf-8-sig", yaml=True))
        except (OSError, UnicodeDecodeError):
            continue
    for text in sources:
        for match in ENV_REFERENCE.finditer(text):
            value = env.get(match.group(1))
            if value:
                found.append(value)
    found.extend(
        value for name, value in env.items() if name.upper().endswith(_SECRET_SUFFIXES) and value
    )
    return found


def data_secrets(data: Any) -> list[str]:
    """The secrets of an agent file's raw data (what the YAML parse gives, before the schema),
    a superset of what `collect_secrets` takes from the validated agent: every string under a
    key named like a credential (which includes `api_key` and `password`), under a
    `SecretStr` field's key (`SECRET_FIELD_KEYS`) or under an `env:` key, at any depth. For
    callers that do not load the schema (`__case-names`); too many values masked only hides
    more, never less."""
    found: list[str] = []
    _raw_secrets(data, found)
    return found


def _raw_secrets(value: Any, found: list[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == _ARGS_KEY:
                # Tool arguments (expected_tools' matchers, an MCP server's command line) are
                # test data the schema reads as matchers or plain lists, never as credentials:
                # `sort_key: revenue` must not hide every name holding "revenue". A secret in
                # them is a `${VAR}`, which environment_secrets finds.
                continue
            if isinstance(key, str) and (
                _CREDENTIAL_KEY.search(key) or key in SECRET_FIELD_KEYS or key == _ENV_KEY
            ):
                _strings_in(item, found)
            else:
                _raw_secrets(item, found)
    elif isinstance(value, list | tuple):
        for item in value:
            _raw_secrets(item, found)


def _strings_in(value: Any, found: list[str]) -> None:
    if isinstance(value, str):
        found.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings_in(item, found)
    elif isinstance(value, list | tuple):
        for item in value:
            _strings_in(item, found)


def _field_secrets(agent: Agent) -> list[str]:
    """The values of the agent's `SecretStr` fields, and of credential-named keys of its
    free-form mappings."""
    # Imported here, not at the top: see the TYPE_CHECKING block.
    from pydantic import BaseModel, SecretStr

    found: list[str] = []

    def fields(value: Any) -> None:
        if isinstance(value, SecretStr):
            found.append(value.get_secret_value())
        elif isinstance(value, BaseModel):
            for name in type(value).model_fields:
                fields(getattr(value, name))
            mapping(value.model_extra or {})
        elif isinstance(value, dict):
            mapping(value)
        elif isinstance(value, list | tuple):
            for item in value:
                fields(item)

    def mapping(items: Mapping[Any, Any]) -> None:
        # Free-form settings (a vector store's pass-through keys) hold plain strings: a key
        # named like a credential marks its value as one.
        for key, item in items.items():
            if isinstance(item, str) and _CREDENTIAL_KEY.search(str(key)):
                found.append(item)
            else:
                fields(item)

    fields(agent)
    return found


class RedactingFilter(logging.Filter):
    """Masks secrets in log records (message and arguments are formatted first). More
    redactors can be added: a long-lived process (the language server) runs many suites."""

    def __init__(self, redactor: Redactor | None = None) -> None:
        super().__init__()
        self._redactor = redactor or Redactor()

    def add(self, redactor: Redactor) -> None:
        if not self._redactor.covers(redactor):
            self._redactor = self._redactor | redactor

    def filter(self, record: logging.LogRecord) -> bool:
        redactor = self._redactor
        if redactor:
            record.msg = redactor.text(record.getMessage())
            record.args = None
            if record.exc_info and record.exc_info[1] is not None:
                record.exc_text = redactor.text(
                    logging.Formatter().formatException(record.exc_info)
                )
                record.exc_info = None
        return True


#: The one filter `mask_logs` puts on the process's handlers.
_LOG_FILTER = RedactingFilter()


def mask_logs(redactor: Redactor) -> None:
    """From now on, mask `redactor`'s secrets in every record the process's log handlers
    write: each root handler, and Python's last-resort handler (what writes to stderr when
    no handler is configured, as in the language server). Secrets of earlier runs stay
    masked: one of them may still be running, or log about it later."""
    _LOG_FILTER.add(redactor)
    handlers = list(logging.getLogger().handlers)
    if logging.lastResort is not None:
        handlers.append(logging.lastResort)
    for handler in handlers:
        if _LOG_FILTER not in handler.filters:
            handler.addFilter(_LOG_FILTER)
