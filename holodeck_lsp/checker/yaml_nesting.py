"""How deeply a YAML text nests, found before ruamel.yaml's C composer sees it.

The C composer recurses once per level on the process's own stack: 28,000 levels of `[`, `{`
or `- ` end the process with SIGSEGV — `check` dies without a word, the language server with
it. HoloDeck's loader (PyYAML) gives up with a RecursionError near 500 levels, so nothing
deeper is a suite anyone can run: such a text gets one HD003 error at the place the limit is
passed (docs/checks.md, "Limits on what is read") instead of being composed.

Two passes, so a real suite pays almost nothing:

1. A bound from counting alone, in C-speed string operations: no flow collection can nest
   deeper than the text has `[` and `{`, and block nesting needs one more column of
   indentation (or one more `- `, `? `, `: ` indicator) per level — or two levels per column
   where a sequence sits at its parent key's indentation. A text whose bound is within the
   limit cannot be too deep.
2. Otherwise, the parser's own events (libyaml's parser is a loop with a stack of its own, it
   does not recurse), counted until the limit is passed: exact, quotes, comments and block
   scalars included, and stopped early, so the parser's per-level cost in deep flow
   collections is paid for at most the limit's levels.
"""

from __future__ import annotations

import re
import threading
import warnings

from ruamel.yaml import YAML
from ruamel.yaml.events import CollectionEndEvent, CollectionStartEvent

#: Levels of nesting read; deeper texts are refused before composing (PyYAML's own limit is
#: near 500: `yaml.safe_load` raises RecursionError at 600 levels of `[` or `- `).
MAX_NESTING = 500
#: Line breaks YAML knows besides \n (\r, NEL, LS, PS): a line head may start after them too.
_OTHER_BREAKS = str.maketrans("\r\x85\u2028\u2029", "\n\n\n\n")
#: Indentation and block indicators (tabs separate indicators).
_HEAD_CHARACTERS = "[ \t?:\\-]"
_local = threading.local()


class NestingTooDeep(ValueError):
    """The text nests deeper than MAX_NESTING; `line` and `column` (0-based, the parser's
    coordinates) are where the level past the limit opens."""

    def __init__(self, line: int, column: int, limit: int = MAX_NESTING) -> None:
        self.line = line
        self.column = column
        self.limit = limit
        super().__init__(
            f"nested more than {limit} levels deep here; holodeck-lsp does not read the file "
            "further, and HoloDeck's loader cannot read it either (it stops near 500 levels): "
            "flatten the structure"
        )


def within_bound(text: str, limit: int = MAX_NESTING) -> bool:
    """True when counting alone shows the text cannot nest deeper than `limit`: its `[` and
    `{` plus two levels per character of the longest line head (indentation and `- `, `? `,
    `: ` indicators) plus three stay within it. No line head is measured: one long enough to
    pass is searched for (in C, without building a string per line)."""
    flow = text.count("[") + text.count("{")
    room = (limit - 3 - flow) // 2  # the longest line head that keeps the bound in
    if room < 0:
        return False
    if not text.isascii() or "\r" in text:
        text = text.translate(_OTHER_BREAKS)
    # "\n" first: the search skips from newline to newline in C.
    return re.search(f"(?:\\A|\\n){_HEAD_CHARACTERS}{{{room + 1}}}", text) is None


def _parser() -> YAML:
    parser: YAML | None = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = YAML(typ="safe", pure=False)
    return parser


def check_nesting(text: str, limit: int = MAX_NESTING) -> bool:
    """Raises NestingTooDeep when `text` nests deeper than `limit`. A text the parser rejects
    before that is left to the composer, which reports the same syntax error; then False is
    returned: the check was not conclusive, and a text rewritten past that error (as
    `yaml_rewrite` does) must be checked again before it is composed."""
    if within_bound(text, limit):
        return True
    depth = 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for event in _parser().parse(text):
                if isinstance(event, CollectionStartEvent):
                    depth += 1
                    if depth > limit:
                        mark = event.start_mark
                        raise NestingTooDeep(mark.line, mark.column, limit)
                elif isinstance(event, CollectionEndEvent):
                    depth -= 1
    except NestingTooDeep:
        raise
    except Exception:  # a syntax error: the composer meets it at the same place
        return False
    return True
