"""What each argument matcher does, said once: hover shows the whole text, completion the same
text (so the two can never disagree, as they once did about `fuzzy`)."""

from __future__ import annotations

FUZZY_DOC = """\
**`fuzzy`** — normalised comparison (not edit distance, not "close enough").

Both sides are turned into text, lower-cased, trimmed, runs of white space collapsed, and
the separators `,` `_` and U+202F (narrow no-break space) removed. A trailing `%` means ÷100
on either side. When both sides then parse as numbers they are compared numerically,
otherwise as text.

| expected | matches | does not match |
|---|---|---|
| `fuzzy: "206,588"` | `206588`, `"206 588"`, `206588.0` | `206589` |
| `fuzzy: "14.14%"` | `0.1414`, `"14.14 %"` | `14.14` |
| `fuzzy: "Net Income"` | `"net  income"` | `"net income (loss)"` |
| `fuzzy: "true"` | `True` | `1` |
"""

REGEX_DOC = """\
**`regex`** — the pattern must match **all** of `str(actual)` (a full match, not a search).

Python `re` semantics, exactly as `re.fullmatch` reads the pattern (`{e<=1}` and
`[[:digit:]]` mean what they mean in `re`), with a time limit (1 s per argument by default).

| expected | matches | does not match |
|---|---|---|
| `regex: "^2009.*$"` | `"2009 annual"` | `"fy2009"` |
| `regex: "\\\\d+"` | `2009` (text `2009`) | `2009.0` (text `2009.0`) |
| `regex: "True"` | `True` | `true` |
"""

LITERAL_DOC = """\
**literal argument** — compared as a value, exactly.

* numbers: `int` and `float` are equivalent (`206588` = `206588.0`; `1e3` = `1000`);
* strings: exact — no case, space or separator changes (`"206,588"` ≠ `206588`);
* booleans are strict: `true` ≠ `1`; `null` only matches `None`; NaN never matches;
* lists / mappings: deep equality, numbers compared as numbers inside.

Use `{fuzzy: "..."}` for normalised text / numbers, `{regex: "..."}` for a pattern.
"""

#: (matcher key, its documentation), in the order completion lists them.
MATCHER_DOCS = (("fuzzy", FUZZY_DOC), ("regex", REGEX_DOC))
