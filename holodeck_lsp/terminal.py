"""Colour on a terminal, plain text elsewhere: `--color auto|always|never` and `NO_COLOR`.

Standard library only: the check, the run and `--help` all use it, and the first line of a
run must not wait for pydantic or an SDK.
"""

from __future__ import annotations

import os
from typing import Literal, Protocol

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

    def case_verdict(self, passed: bool, errored: bool) -> str:
        """PASSED / FAILED, or ERRORED (yellow: the provider's error, not a verdict)."""
        if errored and not passed:
            return self.paint("ERRORED", "yellow", "bold")
        return self.verdict(passed, "PASSED" if passed else "FAILED")


PLAIN = Palette(False)
