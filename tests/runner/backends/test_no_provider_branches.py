"""No module decides per provider by naming one: what differs between providers is their row
in runner/backends/providers.py (its backend, key, endpoint, SK client, judge dialect,
prices), so a new provider is one row (docs/architecture.md, "Where does a change go?").

Read from the source with `ast`: a comparison (`==`, `!=`, `is`, `in`, ...) or a `match` case
against a provider — `Provider.OPENAI` or the string `"openai"` — and a dict keyed by one are
per-provider branches; looking a row up (`PROVIDERS[Provider.ANTHROPIC]`) is not."""

from __future__ import annotations

import ast
from pathlib import Path

from holodeck_lsp.schema.providers import Provider

PACKAGE = Path(__file__).resolve().parents[3] / "holodeck_lsp"
#: Where providers are defined: the enum (and what the schema checks) and the table.
DEFINED_IN = frozenset({Path("schema/providers.py"), Path("runner/backends/providers.py")})
#: Vendored whole with its licence (τ²-bench's own configuration names its LLM providers).
VENDORED = ("importers/tau2/suite_files/tau2_bench/",)
NAMES = frozenset(provider.value for provider in Provider)
MEMBERS = frozenset(provider.name for provider in Provider)


def _names_a_provider(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in NAMES
    if isinstance(node, ast.Attribute):
        return node.attr in MEMBERS and isinstance(node.value, ast.Name | ast.Attribute)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_names_a_provider(element) for element in node.elts)
    if isinstance(node, ast.Call):  # frozenset({...}), set((...))
        return any(_names_a_provider(argument) for argument in node.args)
    return False


def provider_branches(source: str) -> list[int]:
    """The lines of `source` that branch on (or key a table by) a provider's name."""
    lines: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_names_a_provider(operand) for operand in operands):
                lines.append(node.lineno)
        elif isinstance(node, ast.match_case):
            values = [
                pattern.value
                for pattern in ast.walk(node.pattern)
                if isinstance(pattern, ast.MatchValue)
            ]
            if any(_names_a_provider(value) for value in values):
                lines.append(node.pattern.lineno)
        elif isinstance(node, ast.Dict) and any(
            key is not None and _names_a_provider(key) for key in node.keys
        ):
            lines.append(node.lineno)
    return lines


def test_no_module_outside_the_table_branches_on_a_provider() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE) not in DEFINED_IN
        and not str(path.relative_to(PACKAGE)).startswith(VENDORED)
        for line in provider_branches(path.read_text(encoding="utf-8"))
    ]
    assert found == [], (
        "per-provider decisions outside runner/backends/providers.py; "
        f"put them in the provider's row instead: {found}"
    )


def test_the_scan_sees_each_form_of_branch() -> None:
    branches = """
if model.provider is Provider.OLLAMA: pass
if provider == "anthropic": pass
if provider in (Provider.OPENAI, Provider.AZURE_OPENAI): pass
match provider:
    case Provider.ANTHROPIC: pass
SAME = {"azure_openai": "openai"}
"""
    assert provider_branches(branches) == [2, 3, 4, 6, 7]


def test_the_scan_lets_lookups_and_other_comparisons_pass() -> None:
    lookups = """
row = PROVIDERS[Provider.ANTHROPIC]
if ref.provider is current.provider: pass
if kind == "opensearch": pass
KEY = "ollama"
"""
    assert provider_branches(lookups) == []


def test_every_provider_has_its_genai_name() -> None:
    from holodeck_lsp.schema.providers import GENAI_PROVIDER_NAMES

    assert set(GENAI_PROVIDER_NAMES) == set(Provider)
