"""SARIF 2.1.0 output, shaped for GitHub code scanning (`github/codeql-action/upload-sarif`).

GitHub requires, beyond the SARIF schema: `$schema`, `version`, `tool.driver.name`, `rules[]`
with `shortDescription.text`, `fullDescription.text` and `help.text`, and per result
`message.text` and a location whose region has all of startLine/startColumn/endLine/endColumn.
Paths are repository-relative (to the current directory, where the workflow checks out) under
`%SRCROOT%`. `partialFingerprints` are left out: upload-sarif computes the
`primaryLocationLineHash` GitHub actually uses from the file contents.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from holodeck_lsp import __version__
from holodeck_lsp.checker.diagnostics import Diagnostic, Severity
from holodeck_lsp.reports.check.report import Report, relative_to_root
from holodeck_lsp.schema.codes import TITLES, Code

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
TOOL_NAME = "holodeck-lsp"
# The package page is the one address that exists for every install; point it at the project
# site once it has one.
INFORMATION_URI = "https://pypi.org/project/holodeck-lsp/"
SRCROOT = "%SRCROOT%"

_LEVELS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "note",
    Severity.HINT: "note",
}


def render(report: Report, *, cwd: Path | None = None) -> str:
    return json.dumps(to_sarif(report, cwd=cwd), indent=2, ensure_ascii=False) + "\n"


def to_sarif(report: Report, *, cwd: Path | None = None) -> dict[str, Any]:
    root = Path.cwd() if cwd is None else cwd
    codes = sorted({d.code for file in report.files for d in file.diagnostics})
    rule_index = {code: index for index, code in enumerate(codes)}
    results = [
        _result(diagnostic, _artifact_location(file.path, root), rule_index[diagnostic.code])
        for file in report.files
        for diagnostic in file.diagnostics
    ]
    root_uri = _directory_uri(root)
    return {
        "$schema": SCHEMA_URI,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL_NAME,
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": [_rule(code) for code in codes],
                    }
                },
                "invocations": [
                    {"executionSuccessful": True, "workingDirectory": {"uri": root_uri}}
                ],
                "originalUriBaseIds": {SRCROOT: {"uri": root_uri}},
                # Our columns count code points, not SARIF's default UTF-16 code units.
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def _rule(code: Code) -> dict[str, Any]:
    title = TITLES.get(code, code.value)
    return {
        "id": code.value,
        "name": _rule_name(code),
        "shortDescription": {"text": title},
        "fullDescription": {"text": title},
        "help": {"text": f"{code.value}: {title}. See docs/diagnostics.md for causes and fixes."},
    }


def _rule_name(code: Code) -> str:
    # SARIF wants an identifier-like name: WRONG_TYPE -> WrongType.
    return "".join(word.capitalize() for word in code.name.split("_"))


def _result(diagnostic: Diagnostic, artifact: dict[str, str], index: int) -> dict[str, Any]:
    start, end = diagnostic.range.start, diagnostic.range.end
    return {
        "ruleId": diagnostic.code.value,
        "ruleIndex": index,
        "level": _LEVELS[diagnostic.severity],
        "message": {"text": diagnostic.located_message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": artifact,
                    # SARIF regions are 1-based and the end column is exclusive, like the
                    # LSP's: both ends shift by one.
                    "region": {
                        "startLine": start.line + 1,
                        "startColumn": start.character + 1,
                        "endLine": end.line + 1,
                        "endColumn": end.character + 1,
                    },
                }
            }
        ],
    }


def _artifact_location(path: str, root: Path) -> dict[str, str]:
    relative = relative_to_root(path, root)
    if relative is None:
        # Outside the checkout GitHub cannot show it anyway; an absolute URI keeps it exact.
        return {"uri": Path(os.path.realpath(os.path.join(root, path))).as_uri()}
    return {"uri": quote(relative, safe="/"), "uriBaseId": SRCROOT}


def _directory_uri(directory: Path) -> str:
    # A base URI must end with a slash, or relative references replace its last segment.
    return Path(os.path.realpath(directory)).as_uri().rstrip("/") + "/"
