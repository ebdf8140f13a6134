"""Waiting for Kate's code action menu (LSP Client → Code Action, Alt+Return) to show the
server's answer before keys pick from it: Kate opens the menu at once with one entry,
"Loading...", and fills it when the answer comes — a key pressed before that picks from the
wrong list. That the answer is drawn is read from the popup's size (xdotool): it grows from
the "Loading..." entry to the answer's titles, all of them longer. When that cannot be told
(the answer came before the popup could be seen loading, and this list of titles was never
seen drawn), the pick waits a fixed margin, as every pick did before."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.editors.test_kate import TIMEOUT, Kate

#: The size each list of titles gave the menu once it was seen growing to it: a later menu
#: with the same titles is drawn when its popup has that size (the same Kate, fonts and style
#: in every session of this process).
DRAWN: dict[tuple[str, ...], tuple[int, int]] = {}
#: The margin when the drawing cannot be told.
UNTOLD_SECONDS = 1.0
#: At most this long for a menu seen loading to show the answer once it came; then the keys
#: go anyway (the pick's wait for the command Kate sends tells whether it worked).
DRAW_SECONDS = 5.0


def popup_sizes(kate: Kate) -> set[tuple[int, int]]:
    """(width, height) of each visible window of Kate but its main one (the largest)."""
    assert kate.process is not None
    found = kate.ask_xdotool("search", "--onlyvisible", "--pid", str(kate.process.pid))
    sizes = []
    for window in found.split():
        shell = kate.ask_xdotool("getwindowgeometry", "--shell", window)
        fields = dict(line.split("=", 1) for line in shell.split() if "=" in line)
        sizes.append((int(fields.get("WIDTH", 0)), int(fields.get("HEIGHT", 0))))
    sizes.sort(key=lambda size: size[0] * size[1])
    return set(sizes[:-1])


def menu_answered(kate: Kate, asked_before: int) -> list[tuple[dict[str, Any], Any]]:
    """After Alt+Return: the codeAction requests Kate sent since `asked_before` answers and
    their answers (as Traffic.answers), once the menu shows the first answer."""
    traffic = kate.traffic
    loading: set[tuple[int, int]] = set()  # the popup's sizes before the answer came
    deadline = time.monotonic() + TIMEOUT
    while not (answered := traffic.answers("textDocument/codeAction")[asked_before:]):
        if time.monotonic() > deadline:
            pytest.fail(f"no codeAction answered within {TIMEOUT} s; {kate.hint()}")
        sizes = popup_sizes(kate)
        # Read before the answer was in the relay's log: Kate had not drawn it.
        if not traffic.answers("textDocument/codeAction")[asked_before:]:
            loading |= sizes
        time.sleep(0.05)
    titles = tuple(action["title"] for action in answered[0][1] or [])
    if not loading and titles not in DRAWN:
        time.sleep(UNTOLD_SECONDS)
        return answered
    widest = max((width for width, _ in loading), default=None)
    stop = time.monotonic() + DRAW_SECONDS
    while time.monotonic() < stop:
        sizes = popup_sizes(kate)
        if DRAWN.get(titles) in sizes:
            return answered
        grown = [size for size in sizes if widest is not None and size[0] > widest]
        if len(grown) == 1:
            DRAWN[titles] = grown[0]
            return answered
        time.sleep(0.05)
    return answered


def press_for_popup(kate: Kate, key: str, what: str) -> None:
    """Press `key` in Kate and wait until a popup of Kate's not there before shows (`what`
    it is, for the failure), e.g. the command bar Ctrl+Alt+I opens with its line edit
    focused: keys typed after it go there."""
    before = popup_sizes(kate)
    kate.xdotool("key", key)
    deadline = time.monotonic() + TIMEOUT
    while not popup_sizes(kate) - before:
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} shown within {TIMEOUT} s; {kate.hint()}")
        time.sleep(0.05)
