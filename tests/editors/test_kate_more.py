"""More of Kate 22.12 as a real LSP client (the session of test_kate.py: its own Xvfb, the Kate
block of docs/editors/README.md as settings.json, the server behind lsp_relay.py, keys through
xdotool), for the features of the page's table test_kate.py leaves out; each checked in the
relay's traffic, and in the saved file or Kate's window where there is something to see:

* a quick fix: a matcher pattern's quotes deleted with BackSpace (`fuzzy: 60.94`, HD102), then
  *LSP Client → Quick Fix* (Ctrl+.), which asks for the code actions of the diagnostic under
  the cursor and applies them: "Quote the value", the text sent back is the sample's, the error
  clears, and Ctrl+S writes the sample again; then a did-you-mean fix (`fuzy:` → `fuzzy`,
  HD125), although Kate 22.12 sends the diagnostic back without its `data` (it does not
  announce `publishDiagnostics.dataSupport`): the server takes the suggestion from its own
  last check.
* runs, trusted with the sample's cassette: *LSP Client → Code Action* (Alt+Return) in case 0,
  the entry picked from Kate's menu with the keyboard — Run turn (the failing turn: its
  `holodeck-run` diagnostics published, on the argument that differed), Run case, Run all —
  each answered with the verdicts of `holodeck-lsp run --replay` of the same cassette.
* cancelling a run: with a slow code grader added to case 0, Run all from the menu, then, while
  it runs, the same menu offers only "HoloDeck: Cancel the run": picked, Kate executes
  `holodeck.cancelRun` (`{"status": "cancelling"}`), the Run all is answered promptly as
  `cancelled`, and the run's `$/progress` (Kate declares `window.workDoneProgress`) ends with
  "(cancelled)".
* regression marks: three runs stored by the CLI (run_suite's suite: a bad cassette, a good
  one, the bad one again; shared_history.py), the mouse rested on the `input:` of a turn that
  passed before and fails now: the hover says "⇣ Regressed" against the run before the last.
* on an expected_tools name: *Find References* (Ctrl+Alt+L) gets the tool's declaration and
  entries; *Go to Definition* (no default shortcut: through Kate's command bar, Ctrl+Alt+I)
  gets tools.py's `def`, and Kate shows tools.py; *Rename* (F2, Kate's dialog) renames every
  `name:` of the tool, and the file is saved so.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.editors.kate_menu import menu_answered, press_for_popup
from tests.editors.sample_verdicts import sample_verdicts
from tests.editors.shared_history import history_copy
from tests.editors.slow_sample import MARK, RELEASE, with_slow_grader
from tests.editors.test_kate import (
    Kate,
    Traffic,
    copy_sample,
    kate_session,
    wait_opened,
)
from tests.editors.test_neovim import CASSETTE, key_at, turn_spans, unmatched_reasons
from tests.server.runs.run_suite import TURN0_LINE
from tests.server.runs.stored_history import stored_ids

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


def commands_sent(traffic: Traffic) -> list[dict[str, Any]]:
    """Every workspace/executeCommand request Kate sent, answered or not."""
    return [
        m
        for sender, m in traffic.messages()
        if sender == "client" and m.get("method") == "workspace/executeCommand"
    ]


def answer_to(traffic: Traffic, request: dict[str, Any]) -> tuple[float, Any] | None:
    """When (the relay's clock) and what the server answered Kate's `request`, if it has.
    Only the server's answers to Kate come from the server without a `method`."""
    for line in traffic.log.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:  # being written
            continue
        message = entry["message"]
        if (
            entry["from"] == "server"
            and "method" not in message
            and message.get("id") == request["id"]
        ):
            return entry["time"], message.get("result")
    return None


def pick_from_menu(
    kate: Kate, line: int, title: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """LSP Client → Code Action (Alt+Return) with the cursor on `line`: Kate asks for the
    actions of that line and shows them in a menu, opened with no entry selected; Down to the
    entry `title`, Return. The actions offered (all commands: the run actions, or while a run
    goes its cancel) and the executeCommand request Kate sent, which may be unanswered."""
    traffic = kate.traffic
    asked_before = len(traffic.answers("textDocument/codeAction"))
    sent_before = len(commands_sent(traffic))
    kate.focus()
    kate.xdotool("key", "alt+Return")
    asked = menu_answered(kate, asked_before)  # and drawn in the menu, for the keys below
    params, offered = asked[0]
    assert params["range"]["start"] == {"line": line, "character": 0}, params
    titles = [action["title"] for action in offered or []]
    assert title in titles, titles
    assert all("command" in action and "edit" not in action for action in offered), offered
    kate.take_screenshot(kate.screenshot.with_name("menu.png"))
    kate.xdotool("key", "--delay", "100", *["Down"] * (titles.index(title) + 1), "Return")
    sent = traffic.wait(
        f"workspace/executeCommand of {title!r} sent",
        lambda ms: commands_sent(traffic)[sent_before:],
    )
    assert len(sent) == 1, sent
    return offered, sent[0]


def run_from_menu(kate: Kate, line: int, title: str) -> tuple[dict[str, Any], Any]:
    """`pick_from_menu`, and the server's answer: the executeCommand's params and result."""
    _, request = pick_from_menu(kate, line, title)
    _, result = kate.traffic.wait(
        f"workspace/executeCommand of {title!r} answered",
        lambda ms: answer_to(kate.traffic, request),
    )
    return request["params"], result


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
    every_case = sample_verdicts()  # the sample's, as `agent` is a copy of it
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
        reasons = unmatched_reasons(turns[failing])
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


#: How long the grader added for the cancel test waits, on each turn of case 0 (5 turns), for
#: the test's release (slow_sample.py): the first turn is released once the cancel is
#: answered; a turn graded after the cancel would wait all of it.
GRADE_SECONDS = 30


def test_kate_cancels_a_run_from_the_code_action_menu(tmp_path: Path, runtime_dir: Path) -> None:
    agent = copy_sample(tmp_path)
    turns = with_slow_grader(agent, GRADE_SECONDS)
    assert turns == 5, turns
    started = agent.with_name(MARK)
    uri = agent.as_uri()
    lines = agent.read_text(encoding="utf-8").splitlines()
    cursor = key_at(lines, "ground_truth", turn_spans(lines)[0][0])[0]
    cases = lines[lines.index("test_cases:") :]
    case_count = sum(1 for line in cases if line.startswith("  - name: "))
    options = {"trusted": True, "cassettePath": CASSETTE}
    with kate_session(tmp_path, runtime_dir, agent, line=cursor, column=8, options=options) as kate:
        traffic = kate.traffic
        initialize = traffic.wait(
            "initialize",
            lambda ms: next((m for s, m in ms if m.get("method") == "initialize"), None),
        )
        wait_opened(traffic)
        traffic.wait("diagnostics of the opened file", lambda ms: traffic.published())

        # Run all from the menu; its answer waits for the run's end.
        _, run_request = pick_from_menu(kate, cursor, "HoloDeck: Run all test cases")
        assert run_request["params"] == {"command": "holodeck.runAll", "arguments": [uri]}
        traffic.wait("the slow grader grading", lambda ms: started.exists())
        assert answer_to(traffic, run_request) is None, "the run ended before the cancel"

        # While it runs, the menu offers the cancel alone; picked, Kate executes it.
        offered, cancel_request = pick_from_menu(kate, cursor, "HoloDeck: Cancel the run")
        assert offered == [
            {
                "title": "HoloDeck: Cancel the run",
                "command": "holodeck.cancelRun",
                "arguments": [uri],
            }
        ], offered
        assert cancel_request["params"] == {"command": "holodeck.cancelRun", "arguments": [uri]}
        cancelled_at, cancelling = traffic.wait(
            "holodeck.cancelRun answered", lambda ms: answer_to(traffic, cancel_request)
        )
        assert cancelling == {"status": "cancelling"}, cancelling
        agent.with_name(RELEASE).touch()  # the turn being graded ends now
        ended_at, result = traffic.wait(
            "holodeck.runAll answered", lambda ms: answer_to(traffic, run_request)
        )
        kate.take_screenshot()
        assert result["status"] == "cancelled", result
        # Promptly: once the turn being graded is (released just after the cancel), not
        # after another turn's grader (GRADE_SECONDS each, unreleased) and the other cases.
        assert ended_at - cancelled_at < GRADE_SECONDS, (ended_at, cancelled_at)
        case, *others = result["results"]
        assert len(others) == case_count - 1, result["results"]
        skipped = [turn for turn in case["turns"] if turn["skipped"]]
        assert skipped and all("cancelled" in turn["errors"][0] for turn in skipped), case
        for other in others:  # never begun: each turn skipped (`[turn 1] skipped: cancelled`)
            errors = other["errors"]
            assert not other["passed"] and other.get("agent_response") is None, other
            assert errors and all(e.endswith("skipped: cancelled") for e in errors), other
        assert result["summary"]["passed"] == 0, result["summary"]

        # The run's $/progress, when Kate takes it (it declares window.workDoneProgress):
        # begun for every case, ended as cancelled.
        progress = [
            m["params"]["value"]
            for sender, m in traffic.messages()
            if sender == "server" and m.get("method") == "$/progress"
        ]
        window = initialize["params"]["capabilities"].get("window") or {}
        if window.get("workDoneProgress"):
            assert progress[0]["kind"] == "begin", progress
            assert progress[0]["title"] == f"HoloDeck: run {case_count} cases", progress
            assert progress[-1]["kind"] == "end", progress
            assert progress[-1]["message"].endswith(" (cancelled)"), progress
        else:
            assert progress == [], progress


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
        press_for_popup(kate, "ctrl+alt+i", "command bar")
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


def hover_on(kate: Kate, lines: list[str], line: int, first: int, last: int) -> Any:
    """The mouse rested on 0-based `line`, between its characters `first` and `last`: each
    rest makes Kate ask for the hover where the pointer is, and the position it asks for
    steers the next rest (pixels per line and per character guessed, then measured from
    those answers). The server's answer there."""
    traffic = kate.traffic
    window = kate.ask_xdotool("search", "--name", "agent.yaml", "getwindowgeometry", "--shell")
    geometry = dict(entry.split("=", 1) for entry in window.split() if "=" in entry)
    left, top = int(geometry["X"]), int(geometry["Y"])
    x, y = left + int(geometry["WIDTH"]) // 6, top + int(geometry["HEIGHT"]) // 4
    row, column = 18.0, 8.0
    target = (first + last) / 2
    rests: list[tuple[int, int, int, int]] = []  # (x, y, line, character)
    for _ in range(25):
        asked = len(traffic.answers("textDocument/hover"))
        # Off the text first (over the menu bar, which asks nothing): a hover shown goes.
        kate.xdotool("mousemove", str(left + 60), str(top + 8))
        time.sleep(0.2)
        kate.xdotool("mousemove", str(x), str(y))
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and len(traffic.answers("textDocument/hover")) == asked:
            time.sleep(0.05)
        answered = traffic.answers("textDocument/hover")[asked:]
        if not answered:  # no text under the pointer: halfway back to the last rest
            if rests:
                x, y = (x + rests[-1][0]) // 2, (y + rests[-1][1]) // 2
            else:
                y += round(row)
            continue
        params, result = answered[-1]
        at_line, at_character = params["position"]["line"], params["position"]["character"]
        if at_line == line and first <= at_character <= last:
            return result
        inside = at_character < len(lines[at_line])  # not past the end of its line
        for x0, y0, line0, character0 in rests:
            if line0 != at_line and y0 != y:
                row = min(40.0, max(8.0, (y - y0) / (at_line - line0)))
            columns = x0 != x and character0 != at_character
            if columns and inside and character0 < len(lines[line0]):
                column = min(20.0, max(4.0, (x - x0) / (at_character - character0)))
        rests.append((x, y, at_line, at_character))
        y += round((line - at_line) * row)
        if inside or at_line == line:  # past the end of another line, x is as good as any
            x = max(left + 10, x + round((target - at_character) * column))
    pytest.fail(
        f"no hover asked on line {line}, characters {first}-{last}; rests (x, y, line, "
        f"character): {rests}; {kate.hint()}"
    )


def test_kate_hover_marks_a_turn_that_regressed(tmp_path: Path, runtime_dir: Path) -> None:
    # Stored by the real CLI (a copy of shared_history's): bad, good (turn 0 of `two-turns`
    # passes), bad (it fails). The latest run against the one before: that turn regressed.
    suite = history_copy(tmp_path / "suite")
    agent = suite / "agent.yaml"
    ids = stored_ids(suite)
    assert len(ids) == 3, ids
    lines = agent.read_text(encoding="utf-8").splitlines()
    # The turn's `input: "q0"`: where the hover says what changed.
    first = lines[TURN0_LINE].index("input:")
    last = len(lines[TURN0_LINE]) - 1
    options = {"trusted": True}
    with kate_session(
        tmp_path, runtime_dir, agent, line=TURN0_LINE, column=10, options=options
    ) as kate:
        traffic = kate.traffic
        wait_opened(traffic)
        traffic.wait("diagnostics of the opened file", lambda ms: traffic.published())

        kate.focus()  # Kate's window drawn
        answer = hover_on(kate, lines, TURN0_LINE, first + 1, last - 1)
        kate.take_screenshot()
        assert answer, answer
        text = answer["contents"]["value"]
        assert text.startswith(f"**⇣ Regressed** against run {ids[1]}"), text
        assert "before: ✓ passed → now: ✗ failed" in text, text
        assert "numeric" in text and "1.00 → 0.00" in text, text
