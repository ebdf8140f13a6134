"""The HTML report's conversation view in a real browser (Debian's Chromium through
playwright-core, conversation_view.mjs; every network request refused): a long conversation of
two models and a baseline run opens from a turn's detail, draws its turns in batches until the
reader has scrolled to the end, marks exactly the turns that differ from the side shown beside
it (the second model, then the baseline run), unfolds a long tool result in full, runs no
script from the report's text, and goes back to the turn. bench/conversation_view.py times
the same on 500 turns."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from bench.conversation_view import pages
from holodeck_lsp.reports.run import html
from tests.e2e.test_vscode_e2e import CHROMIUM, playwright_core

HERE = Path(__file__).resolve().parent
TURNS = 90
HOSTILE = '<img src=x onerror="window.__pwned=1"></script><script>window.__pwned=2</script>'


def expected_differences(turns: int, beside: str) -> dict[int, str]:
    """bench/conversation_view.py's variants: the second model answers every 7th turn
    differently and flips the verdict of every 11th; the baseline calls one tool fewer on
    every 13th."""
    found: dict[int, str] = {}
    for index in range(turns):
        kinds = []
        if beside == "m1":
            kinds += ["verdict"] if index % 11 == 0 else []
            kinds += ["answer"] if index % 7 == 0 else []
        elif index % 13 == 0:
            kinds.append("tool calls")
        if kinds:
            found[index] = ",".join(kinds)
    return found


#: The sides shown beside the first model, one test each.
BESIDES = ("m1", "base")


@pytest.fixture(scope="module")
def driven(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    """The page rendered once and driven once per side in BESIDES, by one conversation_view.mjs
    (one browser, a fresh context per side): what each drive read back, by side."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH: install Node.js 20 (or set HOLODECK_E2E=0)")
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} not found: apt-get install -y chromium (or HOLODECK_E2E=0)")
    tmp_path = tmp_path_factory.mktemp("conversation")
    head, base = pages(TURNS, calls=2, result_chars=5000)
    for case in [*head.results, *base.results]:  # the same on every side: not a difference
        assert case.turns is not None
        case.turns[3].response = HOSTILE
    page = tmp_path / "conversation.html"
    page.write_text(html.render_html(head, base_report=base), encoding="utf-8")
    playwright_core()
    args = [node, str(HERE / "conversation_view.mjs"), "--page", str(page),
            "--chromium", str(CHROMIUM)]  # fmt: skip
    for beside in BESIDES:
        args += ["--beside", beside, "--out", str(tmp_path / f"{beside}.json")]
    # The script stops itself after 200 s and says at which step; this timeout is a backstop.
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=280, check=False)
    except subprocess.TimeoutExpired as stuck:
        pytest.fail(f"conversation_view.mjs did not end; its steps:\n{stuck.stderr!r}")
    assert done.returncode == 0, done.stdout + done.stderr
    return {
        beside: json.loads((tmp_path / f"{beside}.json").read_text(encoding="utf-8"))
        for beside in BESIDES
    }


@pytest.mark.parametrize("beside", BESIDES)
def test_a_long_conversation_beside_another_side(
    driven: dict[str, dict[str, object]], beside: str
) -> None:
    r = driven[beside]
    assert (r["pageErrors"], r["console"], r["requests"]) == ([], [], [])
    assert (r["pwned"], r["handlers"]) == (None, 0)
    assert r["total"] == TURNS
    # Drawn in batches: the first is short, scrolling to the end draws every turn once.
    assert 0 < r["drawnFirst"] < TURNS  # type: ignore[operator]
    turns = r["turns"]
    assert [t["t"] for t in turns] == list(range(TURNS))  # type: ignore[union-attr]
    assert all(t["calls"] == 2 and len(t["sides"]) == 1 for t in turns)  # type: ignore[union-attr]
    assert all(t["differs"] is None for t in turns)  # type: ignore[union-attr]
    # The choices: the other model and the baseline run.
    assert r["choices"] == ["", "m1", "base"]
    beside_turns = r["besideTurns"]
    assert [t["t"] for t in beside_turns] == list(range(TURNS))  # type: ignore[union-attr]
    marked = {t["t"]: t["differs"] for t in beside_turns if t["differs"]}  # type: ignore[union-attr]
    assert marked == expected_differences(TURNS, beside)
    assert r["besideDiffering"] == len(marked)
    assert r["sideLabels"] == [
        "openai:model-a",
        "openai:model-b" if beside == "m1" else "the baseline run",
    ]
    # Verdicts per side: the first model fails every 5th turn; the second flips every 11th.
    for t in beside_turns:  # type: ignore[union-attr]
        first = "failed" if t["t"] % 5 == 0 else "passed"
        second = (
            first
            if beside == "base" or t["t"] % 11
            else {"failed": "passed", "passed": "failed"}[first]
        )
        assert t["sides"] == [first, second]
    # A 5,000-character result is kept to the page's 4,000 (with its note) and unfolds whole.
    assert r["foldOpenedLength"] >= 4000  # type: ignore[operator]
    assert r["backToTurn"] == 1
