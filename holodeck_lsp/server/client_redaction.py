"""Nothing the server sends holds a secret: every message passes through `ClientRedaction`
before it is written (docs/editors/README.md, "Secrets in what the server sends").

The secrets are those the loader and the run core mask, by the same rule
(checker/env_masking.py, runner/secrets.py): the value of each `${VAR}` of the texts the server
has checked, written back as the `${VAR}` (so a completed file name or a quick fix's text is
still what belongs in the file), and every `*_API_KEY` / `*_TOKEN` / `*_SECRET` /
`*_PASSWORD` variable of the server's environment, written as `***`. A value inside a URI is
found percent-encoded too.

URIs the client sent itself (the documents it opened) are left as they are: the client knows
them, and a publish to any other URI would not reach the document. The features keep
secret-holding paths out of their answers where a masked one would be useless (an include's
faults are told on the agent's `test_cases_file:` line, `analysis.by_file`); this step is the
net under all of them, for every request, notification and log message alike.

Imports of the checker and the run core happen on the first `learn`, which runs after a check
(the server's start-up does not pay for them; tests/server/test_startup_import_budget.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import quote


class ClientRedaction:
    """The secrets known so far, and how each is written instead."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = os.environ if env is None else env
        self._forms: dict[str, str] = {}
        #: (form, replacement), longest form first; replaced whole when a secret is learnt, so
        #: a writer on another thread always sees a complete list.
        self._ordered: tuple[tuple[str, str], ...] = ()
        self._learnt_environment = False
        self._seen_texts: set[int] = set()

    def __bool__(self) -> bool:
        return bool(self._ordered)

    def learn(self, texts: Iterable[str]) -> None:
        """Add the `${VAR}` values of `texts` (and, the first time, the environment's
        credential variables); their log records are masked from now on too."""
        from holodeck_lsp.checker.env_masking import referenced_values
        from holodeck_lsp.runner.secrets import MASK, Redactor, environment_secrets, mask_logs

        added: dict[str, str] = {}
        if not self._learnt_environment:
            self._learnt_environment = True
            for value in environment_secrets(self._env):
                added.update(dict.fromkeys(_forms_of(value), MASK))
        fresh = [text for text in texts if "${" in text and hash(text) not in self._seen_texts]
        self._seen_texts.update(hash(text) for text in fresh)
        for form, reference in referenced_values(fresh, self._env).items():
            added.update(dict.fromkeys(_forms_of(form), reference))
        new = {form: to for form, to in added.items() if form and form not in self._forms}
        if not new:
            return
        self._forms.update(new)
        self._ordered = tuple(
            sorted(self._forms.items(), key=lambda item: len(item[0]), reverse=True)
        )
        mask_logs(Redactor(new))

    def holds(self, text: str) -> bool:
        return any(form in text for form, _ in self._ordered)

    def text(self, text: str) -> str:
        for form, replacement in self._ordered:
            if form in text:
                text = text.replace(form, replacement)
        return text

    def data(self, value: Any, keep: Callable[[str], bool] = lambda _: False) -> Any:
        """A copy of JSON-like `value` with every string masked (keys included), except the
        strings `keep` accepts (the client's own URIs); list items that point into a file
        whose URI holds a secret (locations, links, symbols, reports) are left out."""
        if not self._ordered:
            return value
        if isinstance(value, dict) and _names_a_secret_file(value.get("result"), self.text, keep):
            value = {**value, "result": None}  # a single location (definition): none
        return _masked(value, self.text, keep)


def _forms_of(value: str) -> tuple[str, ...]:
    """`value` as it is, and as a URI's path writes it."""
    return (value, quote(value), quote(value, safe=""))


def _masked(value: Any, mask: Callable[[str], str], keep: Callable[[str], bool]) -> Any:
    if isinstance(value, str):
        return value if keep(value) else mask(value)
    if isinstance(value, dict):
        return {_masked(k, mask, keep): _masked(v, mask, keep) for k, v in value.items()}
    if isinstance(value, list):
        # Semantic tokens, ranges: long lists of numbers, nothing to mask.
        if value and all(isinstance(item, int | float) or item is None for item in value):
            return value
        kept = [item for item in value if not _names_a_secret_file(item, mask, keep)]
        return [_masked(item, mask, keep) for item in kept]
    return value


#: The keys that hold the URI of a location, a link, a symbol or a document's report.
_URI_KEYS = ("uri", "targetUri", "target")


def _names_a_secret_file(
    item: Any, mask: Callable[[str], str], keep: Callable[[str], bool]
) -> bool:
    """Whether `item` of a list points into a file whose URI holds a secret: a location, a
    link or a report of such a file is left out, not sent with a URI that names no file."""
    if not isinstance(item, dict):
        return False
    location = item.get("location")
    place: dict[str, Any] = location if isinstance(location, dict) else item
    for key in _URI_KEYS:
        uri = place.get(key)
        if isinstance(uri, str) and not keep(uri) and mask(uri) != uri:
            return True
    return False
