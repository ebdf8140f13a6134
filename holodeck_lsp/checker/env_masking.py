"""`${VAR}` values never leave in a diagnostic: they are written back as `${VAR}`.

The loader substitutes `${VAR}` references from the environment before validating, so a
message that quotes a value ("must be a number, got string '…'", "… is not one of …") would
show what the variable holds — an API key, as often as not — in the console of `check`, in the
editor's diagnostics and in everything built from them. `mask_env_values` rewrites every
diagnostic of a load: each value a `${VAR}` of the checked texts stands for becomes `${VAR}`
again — in the message, the test case's label, the location's names and the quick-fix data,
in each form a message quotes it (as is, `repr`, JSON). The user still sees which variable
the fault came from.

Values shorter than `MIN_SECRET_LENGTH` are left alone: masking them would mangle ordinary
text ("1" in "line 1"), and no real credential is that short. runner/secrets.py masks run
output by the same rule.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import replace

from holodeck_lsp.checker.diagnostics import Diagnostic
from holodeck_lsp.checker.yaml_convert import ENV_REFERENCE

#: Shorter values are not treated as secrets (see the module's docstring).
MIN_SECRET_LENGTH = 4


def referenced_values(texts: Iterable[str], env: Mapping[str, str]) -> dict[str, str]:
    """Each form a set `${VAR}` value of `texts` may take in a message -> `${VAR}`."""
    forms: dict[str, str] = {}
    for text in texts:
        if "${" not in text:
            continue
        for match in ENV_REFERENCE.finditer(text):
            value = env.get(match.group(1))
            if value is None or len(value) < MIN_SECRET_LENGTH:
                continue
            for form in (value, repr(value)[1:-1], json.dumps(value)[1:-1]):
                forms.setdefault(form, match.group(0))
    return forms


def mask_env_values(diagnostics: list[Diagnostic], forms: Mapping[str, str]) -> list[Diagnostic]:
    """`diagnostics` with every form of `forms` written as its reference (longest first, so a
    value holding another is masked whole)."""
    if not forms:
        return diagnostics
    ordered = sorted(forms, key=len, reverse=True)

    def masked(text: str) -> str:
        return _masked(text, forms, ordered)

    def masked_one(diagnostic: Diagnostic) -> Diagnostic:
        label = diagnostic.test_case
        where = diagnostic.where
        steps = tuple(replace(step, name=masked(step.name)) for step in where.steps)
        return replace(
            diagnostic,
            message=masked(diagnostic.message),
            test_case=masked(label) if label is not None else None,
            data={key: masked(value) for key, value in diagnostic.data.items()},
            where=replace(where, steps=steps, field=masked(where.field)),
        )

    return [masked_one(diagnostic) for diagnostic in diagnostics]


def masked_text(text: str, forms: Mapping[str, str]) -> str:
    """`text` with every form of `forms` written as its reference (a path `check` shows)."""
    return _masked(text, forms, sorted(forms, key=len, reverse=True))


def _masked(text: str, forms: Mapping[str, str], ordered: list[str]) -> str:
    for form in ordered:
        if form in text:
            text = text.replace(form, forms[form])
    return text
