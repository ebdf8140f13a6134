"""HD125: an argument matcher whose one key is a misspelt matcher kind (`{fuzy: "60.94"}`).

A deliberate difference from HoloDeck (docs/diagnostics.md): HoloDeck reads a mapping
without a `fuzzy` / `regex` key as a literal and compares the agent's argument with the
mapping `{fuzy: "60.94"}` — which no tool call ever sends, so every run of the case fails
while the file loads cleanly. We report it as an error, with the kind that was meant. A
`literal` key (or a misspelling of it) is the same trap: a literal is the bare value.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from holodeck_lsp.checker.checked_source import CheckedSource, Path
from holodeck_lsp.checker.diagnostics import Diagnostic, Severity
from holodeck_lsp.checker.suggestions import closest, suggestion_data
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.matchers import MATCHER_KEYS

#: What a one-key mapping's key is compared with: the matcher kinds and `literal`.
_KINDS = (*MATCHER_KEYS, "literal")
#: Close enough to be a typo of a kind (`fuzy` 0.89, `regx` 0.89, `literl` 0.92), far enough
#: that a real argument mapping such as `{format: …}` or `{region: …}` is left alone.
_CUTOFF = 0.75
_DIFFERENCE = " (holodeck-lsp: an error here, although HoloDeck loads the file)"


def intended_kind(key: str) -> str | None:
    """The matcher kind `key` was meant to be, or None when it does not look like one."""
    if key in MATCHER_KEYS:
        return None
    lowered = key.strip().lower()
    if lowered in _KINDS:
        return lowered
    return closest(lowered, _KINDS, cutoff=_CUTOFF)


def misspelt_matchers(
    source: CheckedSource, path: Path, args: dict[Any, Any]
) -> Iterator[Diagnostic]:
    """One error per argument of the expected tool at `path` whose matcher key is a typo."""
    for arg, value in args.items():
        if not isinstance(value, dict) or len(value) != 1:
            continue
        (key,) = value
        if not isinstance(key, str):
            continue
        intended = intended_kind(key)
        if intended is None:
            continue
        value_path = (*path, "args", arg)
        if intended == "literal":
            message = (
                f"`{key}` is not a matcher kind: a literal is written as the bare value "
                f"(`{arg}: {_short(value[key])}`); as written, this argument must equal the "
                f"mapping {{{key}: …}}, which no tool call sends{_DIFFERENCE}"
            )
            data: dict[str, str] = {}
        else:
            message = (
                f"`{key}` is not a matcher kind, so this argument must equal the mapping "
                f"{{{key}: …}}, which no tool call sends; did you mean `{intended}`?"
                f"{_DIFFERENCE}"
            )
            data = suggestion_data(intended)
        yield source.diagnostic(
            (*value_path, key),
            source.key_range(value_path, key),
            Code.MISSPELT_MATCHER,
            message,
            Severity.ERROR,
            data,
        )


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 30 else text[:29] + "…"
