"""Keep credentials out of everything a run writes: reports, cassettes and logs.

Secrets are the values of: every `SecretStr` field of the agent (`model.api_key`, evaluation
and embedding models, vector-store keys, …), every `${VAR}` the agent files substitute, every
MCP server's `env:` value, and every `*_API_KEY` / `*_TOKEN` / `*_SECRET` / `*_PASSWORD`
variable of this process. Each occurrence becomes `***`.

Very short values (under 4 characters) are not treated as secrets: masking them would mangle
ordinary text (numbers in answers), and no real credential is that short.
"""

from __future__ import annotations

import html
import json
import logging
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, SecretStr

from holodeck_lsp.config.yaml_document import ENV_REFERENCE
from holodeck_lsp.engine.reports.html import embed_json
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import TestReport
from holodeck_lsp.schema.tools import MCPTool

MASK = "***"
MIN_SECRET_LENGTH = 4
_SECRET_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
_CREDENTIAL_KEY = re.compile(r"key|token|secret|password", re.IGNORECASE)
_Model = TypeVar("_Model", bound=BaseModel)


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
    found: list[str] = []
    _secret_fields(agent, found)
    for tool in agent.tools or []:
        if isinstance(tool, MCPTool) and tool.env:
            found.extend(tool.env.values())
    sources = list(texts)
    for path in files:
        try:
            sources.append(path.read_text(encoding="utf-8-sig"))
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


def _secret_fields(value: Any, found: list[str]) -> None:
    if isinstance(value, SecretStr):
        found.append(value.get_secret_value())
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            _secret_fields(getattr(value, name), found)
        _secret_mapping(value.model_extra or {}, found)
    elif isinstance(value, dict):
        _secret_mapping(value, found)
    elif isinstance(value, list | tuple):
        for item in value:
            _secret_fields(item, found)


def _secret_mapping(mapping: Mapping[Any, Any], found: list[str]) -> None:
    # Free-form settings (a vector store's pass-through keys) hold plain strings: a key
    # named like a credential marks its value as one.
    for key, item in mapping.items():
        if isinstance(item, str) and _CREDENTIAL_KEY.search(str(key)):
            found.append(item)
        else:
            _secret_fields(item, found)


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
