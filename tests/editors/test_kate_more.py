"""More of Kate 22.12 as a real LSP client (the session of test_kate.py: its own Xvfb, the Kate
block of docs/editors/README.md as settings.json, the server behind lsp_relay.py, keys through
xdotool), for the features of the page's table test_kate.py leaves out; each checked in the
relay's traffic, and in the saved file or Kate's window where there is something to see:

* a quick fix: a matcher pattern's quotes deleted with BackSpace (`fuzzy: 60.94`, HD102), then
  *LSP Client → Quick Fix* (Ctrl+.), which asks for the code actions of the diagnostic under
  the cursor and applies them: "Quote the value", the text sent back is the sample's, the error
  clears, and Ctrl+S writes the sample again. Not a did-you-mean fix (`fuzy:` → `fuzzy`): Kate
  22.12 sends a diagnostic back without its `data` (it does not announce
  `publishDiagnostics.dataSupport`), and without `data` the server offers no such fix.
* runs, trusted with the sample's cassette: *LSP Client → Code Action* (Alt+Return) in case 0,
  the entry picked from Kate's menu with the keyboard — Run turn (the failing turn: its
  `holodeck-run` diagnostics published, on the argument that differed), Run case, Run all —
  each answered with the verdicts of `holodeck-lsp run --replay` of the same cassette.
* on an expected_tools name: *Find References* (Ctrl+Alt+L) gets the tool's declaration and
  entries; *Go to Definition* (no default shortcut: through Kate's command bar, Ctrl+Alt+I)
  gets tools.py's `def`, and Kate shows tools.py; *Rename* (F2, Kate's dialog) renames every
  `name:` of the tool, and the file is saved so.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.editors.test_kate import (
    Kate,
    Traffic,
    copy_sample,
    kate_session,
    wait_opened,
)
from tests.editors.test_neovim import CASSETTE, key_at, replay, turn_spans

pytestmark = pytest.mark.slow  # a real Kate, X server and language server


def changed_texts(traffic: Traffic, after: int) -> list[str]:
    """The whole text of each didChange of the agent file above version `after` (Kate 22.12
    sends full documents unless incremental sync is turned on)."""
    return [
        m["params"]["contentChanges"][-1]["text"]
        for sender, m in traffic.messages()
        if sender == "client"
        and m.get("method") == "textDocument/didChange"
        and traffic.is_agent(m["params"]["textDocument"]["uri"])
        and m["params"]["textDocument"]["version"] > after
    ]


def diagnostics_with(traffic: Traffic, code: str, after: int) -> list[dict[str, Any]]:
    return [
        d for p in traffic.published(after=after) for d in p["diagnostics"] if d["code"] == code
    ]


def saved(path: Path, text: str, kate: Kate) -> None:
    """Ctrl+S in Kate's main window (focused again: no window manager gives it back the
    keyboard after a dialog) until `path` holds `text`."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        kate.focus()
        kate.xdotool("key", "ctrl+s")
        stop = time.monotonic() + 3
        while time.monotonic() < stop:
            if path.read_text(encoding="utf-8") == text:
                return
            time.sleep(0.1)
    pytest.fail(f"{path} not saved as expected; {kate.hint()}")


def test_kate_applies_a_quick_fix(tmp_path: Path, runtime_dir: Path) -> None:
    agent = copy_sample(tmp_path)
    text = agent.read_text(encoding="utf-8")
    lines = text.splitlines()
    line, column = key_at(lines, "fuzzy", turn_spans(lines)[0][0])
    pattern = lines[line][column + len("fuzzy: ") :]
    assert pattern.startswith('"') and pattern.endswith('"'), pattern
    unquoted = lines[line].replace(pattern, pattern[1:-1])
    # The cursor at the end of the line: BackSpace, to the left across the number, BackSpace
    # again, and the pattern is an unquoted number (HD102).
    keys = " ".join(["BackSpace", *["Left"] * (len(pattern) - 2), "BackSpace"])
    with kate_session(tmp_path, runtime_dir, agent, line=line, column=len(lines[line])) as kate:
        traffic = kate.traffic
        wait_opened(traffic)
        first = traffic.wait("diagnostics of the opened file", lambda ms: traffic.published())
        assert first[0]["diagnostics"] == [], first

        before = traffic.last_version()
        kate.type_into_kate(keys, before, keys=True)
        [fault] = traffic.wait(
            "HD102 for the unquoted number",
            lambda ms: diagnostics_with(traffic, "HD102", before)[:1],
        )
        kate.take_screenshot()
        assert changed_texts(traffic, before)[-1].splitlines()[line] == unquoted
        assert fault["range"]["start"]["line"] == line, fault
        assert "must be a string" in fault["message"], fault
        faulty = traffic.last_version()

        # LSP Client → Quick Fix (Ctrl+.) with the cursor in the diagnostic: Kate asks for the
        # code actions of that diagnostic and applies what the server offers.
        kate.xdotool("key", "ctrl+period")
        asked = traffic.wait(
            "codeAction answered with a fix",
            lambda ms: [(p, r) for p, r in traffic.answers("textDocument/codeAction") if r],
        )
        params, offered = asked[0]
        assert [d["code"] for d in params["context"]["diagnostics"]] == ["HD102"], params
        assert [a["title"] for a in offered] == ["Quote the value"], offered
        # The edit applied: Kate sends the sample's text back, the server clears the error,
        # and Ctrl+S writes it.
        traffic.wait(
            "didChange with the fixed text",
            lambda ms: [t for t in changed_texts(traffic, faulty) if t == text],
        )
        traffic.wait(
            "empty diagnostics after the fix",
            lambda ms: [p for p in traffic.published(after=faulty) if not p["diagnostics"]],
        )
        saved(agent, text, kate)

        # A did-you-mean fix: its suggestion travels in the diagnostic's `data`, which Kate
        # does not send back — the server takes it from its own last check. `fuzzy` loses a
        # `z` (HD125, a misspelt matcher kind); Ctrl+. offers and applies "Change to 'fuzzy'".
        clean = traffic.last_version()
        kate.focus()
        kate.go_to_line(line)
        kate.type_into_kate("End Home Right Right Delete", clean, keys=True)
        [misspelt] = traffic.wait(
            "HD125 for fuzy", lambda ms: diagnostics_with(traffic, "HD125", clean)[:1]
        )
        assert changed_texts(traffic, clean)[-1].splitlines()[line].lstrip().startswith("fuzy:")
        asked_before = len(traffic.answers("textDocument/codeAction"))
        typo = traffic.last_version()
        kate.xdotool("key", "ctrl+period")
        [(params, offered)] = traffic.wait(
            "codeAction answered with the did-you-mean fix",
            lambda ms: [
                (p, r) for p, r in traffic.answers("textDocument/codeAction")[asked_before:] if r
            ][:1],
        )
        sent = params["context"]["diagnostics"]
        assert [d["code"] for d in sent] == ["HD125"] and "data" not in sent[0], sent
        assert misspelt.get("data"), misspelt  # what the server had published
        assert [a["title"] for a in offered] == ["Change to 'fuzzy'"], offered
        traffic.wait(
            "didChange back to the sample's text",
            lambda ms: [t for t in changed_texts(traffic, typo) if t == text],
        )
        saved(agent, text, kate)


def run_from_menu(kate: Kate, line: int, title: str) -> tuple[dict[str, Any], Any]:
    """LSP Client → Code Action (Alt+Return) with the cursor on `line`: Kate asks for the
    actions of that line and shows them in a menu, opened with no entry selected; Down to the
    entry `title`, Return. The executeCommand Kate sent and the server's answer."""
    traffic = kate.traffic
    asked_before = len(traffic.answers("textDocument/codeAction"))
    ran_before = len(traffic.answers("workspace/executeCommand"))
    kate.focus()
    kate.xdotool("key", "alt+Return")
    asked = traffic.wait(
        "codeAction answered with run actions",
        lambda ms: traffic.answers("textDocument/codeAction")[asked_before:],
    )
    params, offered = asked[0]
    assert params["range"]["start"] == {"line": line, "character": 0}, params
    titles = [action["title"] for action in offered or []]
    assert title in titles, titles
    assert all("command" in action and "edit" not in action for action in offered), offered
    time.sleep(1)  # the answer drawn in the menu, in place of "Loading..."
    kate.take_screenshot(kate.screenshot.with_name("menu.png"))
    kate.xdotool("key", "--delay", "100", *["Down"] * (titles.index(title) + 1), "Return")
    executed = traffic.wait(
        f"workspace/executeCommand of {title!r} answered",
        lambda ms: traffic.answers("workspace/executeCommand")[ran_before:],
    )
    assert len(executed) == 1, executed
    return executed[0][0], executed[0][1]


def verdicts(results: list[dict[str, Any]]) -> list[tuple[str, bool, list[bool]]]:
    """(case, passed, each turn's passed) of a report's results."""
    return [
        (r["test_name"], r["passed"], [t["passed"] for t in r.get("turns") or []]) for r in results
    ]


def test_kate_runs_a_turn_a_case_and_all_from_code_actions(
    tmp_path: Path, runtime_dir: Path
) -> None:
    agent = copy_sample(tmp_path)
    uri = agent.as_uri()
    lines = agent.read_text(encoding="utf-8").splitlines()
    spans = turn_spans(lines)
    # The CLI's verdicts from the cassette; a replay is deterministic, so a turn run alone
    # (the earlier ones replayed as context) gets the same one.
    every_case = replay(agent)
    turns = {turn["turn_index"]: turn for turn in every_case[0]["turns"]}
    failing = min(index for index, turn in turns.items() if not turn["passed"])
    first, end = spans[failing]
    cursor = key_at(lines, "ground_truth", first)[0]
    assert first < cursor < end
    suite_start = lines.index("test_cases:")
    case_name = next(x for x in lines[suite_start:] if x.startswith("  - name: ")).split('"')[1]
    # The page's block, trusted for this test, with the sample's cassette.
    options = {"trusted": True, "cassettePath": CASSETTE}
    with kate_session(tmp_path, runtime_dir, agent, line=cursor, column=8, options=options) as kate:
        traffic = kate.traffic
        wait_opened(traffic)
        traffic.wait("diagnostics of the opened file", lambda ms: traffic.published())

        # Run turn: the failing turn of case 0, as the CLI says.
        title = f"HoloDeck: Run turn {failing} of case '{case_name}'"
        command, result = run_from_menu(kate, cursor, title)
        assert command == {"command": "holodeck.runTurn", "arguments": [uri, 0, failing]}
        assert result["status"] == "done", result
        assert result["summary"]["failed"] == 1 and result["summary"]["passed"] == 0, result

        # The turn's result in the file: `holodeck-run` errors in the failing turn only,
        # naming the argument that differed, on its line.
        run = traffic.wait(
            "holodeck-run diagnostics",
            lambda ms: [
                d
                for p in traffic.published()
                for d in p["diagnostics"]
                if d.get("source") == "holodeck-run"
            ],
        )
        kate.take_screenshot()
        assert all(first <= d["range"]["start"]["line"] < end for d in run), run
        assert all(d["severity"] == 1 for d in run), run
        reasons = [
            detail["unmatched_reason"]
            for detail in turns[failing]["arg_match_details"] or []
            if detail["unmatched_reason"]
        ]
        assert reasons, turns[failing]
        for reason in reasons:
            at = [d for d in run if reason in d["message"]]
            assert at, (reason, run)
            arg = reason.split("'")[1]  # arg 'column' mismatch: … -> column
            assert lines[at[0]["range"]["start"]["line"]].strip().startswith(f"{arg}:"), at

        # Run case, then Run all, from the same menu: the CLI's verdicts.
        command, result = run_from_menu(kate, cursor, f"HoloDeck: Run case '{case_name}'")
        assert command == {"command": "holodeck.runCase", "arguments": [uri, 0]}
        assert verdicts(result["results"]) == verdicts(every_case[:1]), result
        command, result = run_from_menu(kate, cursor, "HoloDeck: Run all test cases")
        assert command == {"command": "holodeck.runAll", "arguments": [uri]}
        assert verdicts(result["results"]) == verdicts(every_case), result


def expected_tool(lines: list[str]) -> tuple[int, int, str]:
    """(line, column, name) of the first expected_tools entry's name, the column inside it."""
    line = key_at(lines, "expected_tools", turn_spans(lines)[0][0])[0] + 1
    name = lines[line].split("name:")[1].strip()
    return line, lines[line].index(name) + 2, name


def test_kate_goes_to_definition_and_finds_references(tmp_path: Path, runtime_dir: Path) -> None:
    agent = copy_sample(tmp_path)
    lines = agent.read_text(encoding="utf-8").splitlines()
    line, column, name = expected_tool(lines)
    tools = agent.with_name("tools.py").read_text(encoding="utf-8").splitlines()
    definition = next(i for i, text in enumerate(tools) if text.startswith(f"def {name}("))
    with kate_session(tmp_path, runtime_dir, agent, line=line, column=column) as kate:
        traffic = kate.traffic
        wait_opened(traffic)
        traffic.wait("diagnostics of the opened file", lambda ms: traffic.published())

        # LSP Client → Find References (Ctrl+Alt+L): the tool's declaration under `tools:` and
        # every expected_tools entry naming it.
        kate.focus()
        kate.xdotool("key", "ctrl+alt+l")
        [(params, found)] = traffic.wait(
            "references answered", lambda ms: traffic.answers("textDocument/references")
        )
        assert params["position"] == {"line": line, "character": column}, params
        found_lines = sorted(r["range"]["start"]["line"] for r in found)
        expected = [i for i, text in enumerate(lines) if text.strip() == f"- name: {name}"]
        assert found_lines == expected, (found_lines, expected)
        assert all(traffic.is_agent(r["uri"]) for r in found), found

        # LSP Client → Go to Definition, from Kate's command bar (Ctrl+Alt+I; the action has
        # no default shortcut): the server answers tools.py's `def`, and Kate opens it.
        kate.focus()
        kate.xdotool("key", "ctrl+alt+i")
        time.sleep(1)
        kate.xdotool("type", "--delay", "50", "Go to Definition")
        time.sleep(1)
        kate.take_screenshot(tmp_path / "command-bar.png")
        kate.xdotool("key", "Return")
        [(params, answer)] = traffic.wait(
            "definition answered", lambda ms: traffic.answers("textDocument/definition")
        )
        assert params["position"] == {"line": line, "character": column}, params
        [target] = answer if isinstance(answer, list) else [answer]
        uri = target.get("uri") or target.get("targetUri")
        assert uri == agent.with_name("tools.py").as_uri(), target
        where = target.get("range") or target.get("targetSelectionRange")
        assert where["start"]["line"] == definition, (target, definition)
        titles: list[str] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            titles = [title for _, _, title in kate.windows()]
            if any(title.startswith("tools.py") for title in titles):
                break
            time.sleep(0.2)
        kate.take_screenshot()
        assert titles and titles[0].startswith("tools.py"), (titles, kate.hint())


def test_kate_renames_a_tool(tmp_path: Path, runtime_dir: Path) -> None:
    agent = copy_sample(tmp_path)
    text = agent.read_text(encoding="utf-8")
    lines = text.splitlines()
    line, column, name = expected_tool(lines)
    new_name = "read_table"
    # Every `name:` of the tool, its declaration's and the expected_tools entries'; its
    # `function:` (the Python function's name) stays.
    renamed = "".join(
        row.replace(f"name: {name}", f"name: {new_name}")
        if row.strip() == f"- name: {name}"
        else row
        for row in text.splitlines(keepends=True)
    )
    assert renamed.count(new_name) > 2, renamed
    with kate_session(tmp_path, runtime_dir, agent, line=line, column=column) as kate:
        traffic = kate.traffic
        wait_opened(traffic)
        traffic.wait("diagnostics of the opened file", lambda ms: traffic.published())
        before = traffic.last_version()

        # LSP Client → Rename (F2): Kate's dialog holds the word under the cursor, selected;
        # the new name typed over it, Return.
        kate.focus()
        kate.xdotool("key", "F2")
        dialog: list[tuple[int, str, str]] = []
        deadline = time.monotonic() + 30
        while not dialog and time.monotonic() < deadline:
            dialog = [w for w in kate.windows() if w[2].startswith("Rename")]
            time.sleep(0.2)
        assert dialog, (kate.windows(), kate.hint())
        kate.xdotool("windowfocus", "--sync", dialog[0][1])
        kate.xdotool("key", "ctrl+a")
        kate.xdotool("type", "--delay", "50", new_name)
        kate.xdotool("key", "Return")
        [(params, edit)] = traffic.wait(
            "rename answered", lambda ms: traffic.answers("textDocument/rename")
        )
        assert params["newName"] == new_name, params
        assert params["position"] == {"line": line, "character": column}, params
        assert edit, edit
        # Kate applied the edit: the renamed text sent back, and without errors.
        traffic.wait(
            "didChange with the renamed text",
            lambda ms: [t for t in changed_texts(traffic, before) if t == renamed],
        )
        traffic.wait(
            "diagnostics of the renamed text",
            lambda ms: [
                p
                for p in traffic.published(after=before)
                if p.get("version") == traffic.last_version()
            ],
        )
        last = traffic.published(after=before)[-1]
        assert not [d for d in last["diagnostics"] if d["severity"] == 1], last
        saved(agent, renamed, kate)
