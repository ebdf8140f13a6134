"""Colour on a terminal, plain text elsewhere: `--color auto|always|never` and `NO_COLOR`;
and no control character from a file or a stored run ever reaches the terminal.

Standard library only: the check, the run and `--help` all use it, and the first line of a
run must not wait for pydantic or an SDK.

Names, inputs, answers, paths and messages come from agent files, stored runs, reports and
cassettes: an escape sequence in one (`"evil\\e]0;TITLE\\a\\e[2J"`) would retitle or clear
the user's terminal. `printable` writes every control character as its escape (`\\x1b`,
`\\x07`, `\\r`); `printable_output` puts it under every line the commands print (the CLI
wraps stdout and stderr with it for the time of a command, `cli.main`). What the tool draws
itself — the colours of `Palette`, the run's status line redrawn in place — is let through
only once it is drawing (`allow_drawing`: a palette with colour on, a live progress display on
a terminal); otherwise no escape character is written at all (docs/cli.md, "Control
characters in what is printed").
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterator
from typing import Any, Literal, Protocol, TextIO, cast

ColorChoice = Literal["auto", "always", "never"]
COLOR_CHOICES: tuple[ColorChoice, ...] = ("auto", "always", "never")

_CODES = {"red": "31", "green": "32", "yellow": "33", "blue": "34", "bold": "1", "dim": "2"}


class _Stream(Protocol):
    def isatty(self) -> bool: ...


def wants_color(choice: ColorChoice, stream: _Stream, env: dict[str, str] | None = None) -> bool:
    """`always`/`never` as said; `auto`: a terminal, unless NO_COLOR is set to anything
    non-empty (https://no-color.org) or TERM is `dumb`."""
    if choice != "auto":
        return choice == "always"
    environment = os.environ if env is None else env
    if environment.get("NO_COLOR") or environment.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream: plain text
        return False


class Palette:
    """Wraps text in ANSI colours, or returns it unchanged when colour is off."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        if enabled:
            allow_drawing()

    def paint(self, text: str, *styles: str) -> str:
        if not self.enabled or not styles:
            return text
        codes = ";".join(_CODES[style] for style in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def severity(self, label: str) -> str:
        style = {"error": "red", "warning": "yellow"}.get(label, "blue")
        return self.paint(label, style, "bold")

    def verdict(self, passed: bool, text: str) -> str:
        return self.paint(text, "green" if passed else "red", "bold")

    def case_verdict(self, passed: bool, errored: bool, simulator_failed: bool = False) -> str:
        """PASSED / FAILED, ERRORED (yellow: the provider's error, not a verdict), or
        SIMULATOR FAILED (blue: the simulated user's failure, not the agent's)."""
        if simulator_failed and not passed:
            return self.paint("SIMULATOR FAILED", "blue", "bold")
        if errored and not passed:
            return self.paint("ERRORED", "yellow", "bold")
        return self.verdict(passed, "PASSED" if passed else "FAILED")


PLAIN = Palette(False)


#: C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides and
#: isolates (they reorder what is shown after them).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_STYLE = "(?:0|1|2|3[1-4])"
#: What the tool draws with: `Palette`'s colours anywhere; the status line's `\r` + erase line
#: and the progress display's cursor up + erase below only where it writes them, at the start
#: of a write (commands/console/totals_bar.py, case_progress.py), never inside a name.
_COLOUR = re.compile(rf"\x1b\[(?:{_STYLE}(?:;{_STYLE})*)?m")
_REDRAW = re.compile(r"(?:\r\x1b\[K|\x1b\[[0-9]+F)?(?:\x1b\[J)?")
_NAMED = {"\r": "\\r", "\x1b": "\\x1b", "\x07": "\\x07", "\x08": "\\x08"}


def printable(text: str) -> str:
    """`text` with every control character but tab and newline written as its escape:
    `\\x1b`, `\\x07`, `\\r`, `\\u009b`, `\\u202e`."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    # DEL, C1 and the bidi controls as `\\u…`: the one escape both JSON and Python read, so
    # a JSON document printed (`check --format json`) stays valid and means the same.
    return f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}"


class _Drawing:
    """Whether the tool draws on the current output (colour on, or a live display)."""

    on = False


def allow_drawing() -> None:
    """The tool's own colours and cursor moves may pass from now on (see the module)."""
    _Drawing.on = True


class PrintableStream:
    """A text stream whose writes pass through `printable`, keeping the tool's own drawing
    when it draws (`allow_drawing`)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def write(self, text: str, /) -> int:
        if _CONTROL.search(text):
            self._inner.write(_shown(text))
        else:
            self._inner.write(text)
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, encoding, fileno, buffer, …
        return getattr(self._inner, name)


def _shown(text: str) -> str:
    if not _Drawing.on:
        return printable(text)
    redraw = _REDRAW.match(text)
    last = redraw.end() if redraw is not None else 0
    pieces: list[str] = [text[:last]]
    for drawn in _COLOUR.finditer(text, last):
        pieces += [printable(text[last : drawn.start()]), drawn.group()]
        last = drawn.end()
    pieces.append(printable(text[last:]))
    return "".join(pieces)


@contextlib.contextmanager
def printable_output() -> Iterator[None]:
    """stdout and stderr through `PrintableStream` for the time of one command."""
    saved = sys.stdout, sys.stderr
    _Drawing.on = False
    sys.stdout = cast(TextIO, PrintableStream(saved[0]))
    sys.stderr = cast(TextIO, PrintableStream(saved[1]))
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        sys.stdout, sys.stderr = saved
        _Drawing.on = False
