"""Completion of stored runs, tags, `-k` and `--model` (the hidden `__run-refs` and
`__models`, and the scripts that call them), on a real history: the real CLI replays a small
suite twice and tags a run with `runs --tag`. In-process for the lists; in real bash (also a
real terminal), zsh and fish for what the scripts do with them (tests/cli/completion_shells.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from holodeck_lsp.cli import COMMANDS, help_text, main
from holodeck_lsp.commands.shell_completion.command_table import find_command
from holodeck_lsp.commands.shell_completion.line_words import (
    Valued,
    read_line,
    read_spec,
    valued_spec,
)
from holodeck_lsp.commands.shell_completion.model_names import model_names
from holodeck_lsp.commands.shell_completion.run_refs import run_refs
from holodeck_lsp.schema.providers import Provider
from tests.cli.completion_shells import (
    bash_complete,
    load_script,
    run_shell,
    shell_quote,
    tab_in_terminal,
)
from tests.runner.run_history.history_suite import replay, run_folders, write_cassette, write_suite

#: A tag written into tags.json by hand (`runs --tag` refuses such names): it must reach the
#: line as text, never as code.
ODD_TAG = "x$(touch PWNED)`touch PWNED2`;y"


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two stored runs of tmp_path/agent.yaml (older: all pass; newer: one case fails), the
    older tagged `base`; the current folder is tmp_path."""
    cassette = write_suite(tmp_path)
    assert replay(tmp_path, cassette) == 0
    assert replay(tmp_path, write_cassette(tmp_path / "bad.json", ("1", "181001", "yes"))) == 1
    assert main(["runs", str(tmp_path), "--tag", "base", "previous"]) == 0
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _ids(folder: Path) -> tuple[str, str]:
    old, new = (path.name for path in run_folders(folder))
    return old, new


def _values(command: str, *words: str, tags_only: bool = False) -> list[str]:
    return [
        ref.value
        for ref in run_refs(read_line(command, list(words), _valued(command)), tags_only=tags_only)
    ]


def _out(argv: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> bytes:
    capsysbinary.readouterr()
    assert main(argv) == 0
    return capsysbinary.readouterr().out


def _valued(command: str) -> dict[str, Valued]:
    """The options of `command` taking a value, as its completion script passes them."""
    table = find_command(COMMANDS, command)
    assert table is not None
    return read_spec(valued_spec(table))


# --- __run-refs ----------------------------------------------------------------------------------


def test_tags_then_latest_previous_then_ids_newest_first(history: Path) -> None:
    old, new = _ids(history)
    assert _values("compare") == ["base", "latest", "previous", new, old]
    refs = run_refs(read_line("compare", [], _valued("compare")))
    about = {ref.value: ref.description for ref in refs}
    assert about["base"].startswith(f"→ {old}, ") and about["base"].endswith("cases 2/2 100%")
    assert about["latest"].startswith(f"→ {new}, ") and "cases 1/2 50%" in about["latest"]
    assert about[old].endswith("(tag base)")


def test_whose_history_follows_the_command(
    history: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = _ids(history)
    everything = ["base", "latest", "previous", new, old]
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    agent = str(history / "agent.yaml")
    for command, words in [
        ("compare", ["--agent", agent]),
        ("compare", ["latest", "--format", "json"]),
        ("report", ["--agent", str(history)]),
        ("report", ["--html", "page.html"]),
        ("runs", [agent]),
        ("runs", []),
        ("runs", ["--tag", "nightly"]),  # NAME given, RUN next
        ("run", [agent, "--replay", "cassette.json"]),
        ("run", [str(history)]),
        ("run", []),  # no path typed yet: the agent file here
    ]:
        assert _values(command, *words) == everything, (command, words)
    assert _values("runs", "--untag", tags_only=True) == ["base"]
    # From another folder only what the line names counts.
    monkeypatch.chdir(elsewhere)
    assert _values("compare") == []
    assert _values("compare", "--agent", agent) == everything
    assert _values("runs", "--tag", "x", "latest", str(history)) == everything
    assert _values("run", "agen") == []  # a path still being typed


def test_broken_or_missing_history_gives_nothing(
    history: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    old, new = _ids(history)
    # A corrupt run folder is left out, the others stay; an unreadable tags.json drops tags.
    (history / ".holodeck" / "runs" / old / "run.json").write_text("{", encoding="utf-8")
    assert _values("compare") == ["latest", new]
    (history / ".holodeck" / "runs" / "tags.json").write_text("[", encoding="utf-8")
    assert _values("compare") == ["latest", new]
    # No history at all, two agent files (compare cannot choose), nothing on disk: no output.
    shutil.rmtree(history / ".holodeck")
    assert _out(["__run-refs", "--", "compare"], capsysbinary) == b""
    (history / "other.agent.yaml").write_text((history / "agent.yaml").read_text(), "utf-8")
    assert _out(["__run-refs", "--describe", "--", "compare"], capsysbinary) == b""
    assert _out(["__run-refs", "--", "runs", str(history / "nowhere")], capsysbinary) == b""
    assert _out(["__run-refs"], capsysbinary) == b""


def test_a_tag_pointing_nowhere_or_holding_control_characters_is_left_out(history: Path) -> None:
    old, new = _ids(history)
    tags = {"base": old, "gone": "20200101-000000-0000", "two\nlines": new, ODD_TAG: new}
    (history / ".holodeck" / "runs" / "tags.json").write_text(
        json.dumps({"version": 1, "tags": tags}), encoding="utf-8"
    )
    assert _values("compare") == ["base", ODD_TAG, "latest", "previous", new, old]


def test_output_is_nul_separated_with_tab_descriptions(
    history: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    old, new = _ids(history)
    plain = _out(["__run-refs", "--", "compare"], capsysbinary)
    assert plain == b"\0".join(v.encode() for v in ["base", "latest", "previous", new, old]) + b"\0"
    described = _out(["__run-refs", "--kind", "tag", "--describe", "--", "runs"], capsysbinary)
    assert described.startswith(f"base\t→ {old}, ".encode()) and described.endswith(b"\0")
    assert described.count(b"\0") == 1


def test_what_a_run_holds_besides_its_name_and_counts_is_not_printed(
    history: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """The descriptions say when and how many passed; run.json's other fields (models, agent
    name, git commit) are not shown, so a secret a hand-edited or older run.json holds there
    never reaches the line."""
    old, _ = _ids(history)
    planted = "sk-planted-31d7"
    path = history / ".holodeck" / "runs" / old / "run.json"
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta.update(models=[f"openai:{planted}"], agent_name=planted, git_commit=planted)
    path.write_text(json.dumps(meta), encoding="utf-8")
    out = _out(["__run-refs", "--describe", "--", "compare"], capsysbinary)
    assert old.encode() in out and planted.encode() not in out


def test_the_line_is_read_as_the_command_reads_it() -> None:
    line = read_line("runs", ["--tag", "nightly", "latest", "--json", "agents/"], _valued("runs"))
    assert line.values == {"--tag": ["nightly", "latest"]} and line.positionals == ["agents/"]
    line = read_line(
        "compare", ["--agent", "a.yaml", "--format", "json", "base", "--", "x"], _valued("compare")
    )
    assert line.last("--agent") == "a.yaml" and line.positionals == ["base", "x"]
    assert read_line("run", ["agent.yaml", "-k", "rev", "--model"], _valued("run")).values == {
        "-k": ["rev"]
    }


def test_the_hidden_commands_stay_out_of_help() -> None:
    text = help_text()
    assert "__run-refs" not in text and "__models" not in text


# --- __models ----------------------------------------------------------------------------------


def test_models_are_the_providers_then_holodeck_lsp_yaml(
    history: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    providers = [f"{provider.value}:" for provider in Provider]
    assert providers[:2] == ["openai:", "azure_openai:"]
    monkeypatch.setenv("HOME", str(history / "home"))  # no user-level holodeck-lsp.yaml
    assert [ref.value for ref in model_names(read_line("run", [], _valued("run")))] == providers
    planted = "deploy-planted-9c1e"
    monkeypatch.setenv("PLANTED_DEPLOYMENT", planted)
    (history / "holodeck-lsp.yaml").write_text(
        "models:\n  - openai:gpt-4o-mini\n  - ollama:qwen2.5:7b\n"
        "  - azure_openai:${PLANTED_DEPLOYMENT}\n  - nosuch:model\n",
        encoding="utf-8",
    )
    line = read_line("run", ["agent.yaml", "--model", "openai:gpt-4o"], _valued("run"))
    assert [ref.value for ref in model_names(line)] == [
        *providers,
        "openai:gpt-4o-mini",
        "ollama:qwen2.5:7b",
    ]
    out = _out(["__models", "--describe", "--", "run", "agent.yaml"], capsysbinary)
    assert b"openai:gpt-4o-mini\tfrom holodeck-lsp.yaml\0" in out
    assert planted.encode() not in out
    # A models list that does not read still leaves the providers.
    (history / "holodeck-lsp.yaml").write_text("models: [\n", encoding="utf-8")
    assert _out(["__models", "--", "run"], capsysbinary) == b"".join(
        p.encode() + b"\0" for p in providers
    )


# --- the scripts in real shells ------------------------------------------------------------------


def _bash_line(cwd: Path, line: str) -> list[str]:
    """COMPREPLY for `line` (cursor at its end), split into words as bash splits them: at
    blanks, and at ':' (COMP_WORDBREAKS) — and COMP_LINE set, as readline sets it."""
    words = line.replace(":", " : ").split(" ")
    words = [word for word in words if word] + ([""] if line.endswith((" ", ":")) else [])
    if line.endswith(":"):
        words = words[:-1]  # the cursor is on the ':' itself
    return bash_complete(cwd, words, line=line)


@pytest.mark.slow
def test_bash_completes_runs_tags_cases_and_models(history: Path) -> None:
    old, new = _ids(history)
    assert bash_complete(history, ["holodeck-lsp", "compare", ""])[:5] == [
        "base", "latest", "previous", new, old,
    ]  # fmt: skip
    assert "bad.json" in bash_complete(history, ["holodeck-lsp", "compare", ""])  # report files too
    assert bash_complete(history, ["holodeck-lsp", "compare", "ba"]) == ["base", "bad.json"]
    # An id prefix both share: the two runs may straddle a second (or a day) boundary.
    shared = next((new[:i] for i, (a, b) in enumerate(zip(new, old, strict=True)) if a != b), new)
    assert bash_complete(history, ["holodeck-lsp", "compare", shared]) == [new, old]
    assert bash_complete(history, ["holodeck-lsp", "compare", "--baseline", "b"]) == [
        "base",
        "bad.json",
    ]
    assert bash_complete(history, ["holodeck-lsp", "runs", "--untag", ""]) == ["base"]
    assert bash_complete(history, ["holodeck-lsp", "runs", "--tag", "nightly", "l"]) == ["latest"]
    assert bash_complete(history, ["holodeck-lsp", "report", "p"]) == ["previous"]
    assert bash_complete(history, ["holodeck-lsp", "run", "agent.yaml", "-k", "s"]) == [
        "sums",
        "single",
    ]
    assert _bash_line(history, "holodeck-lsp run agent.yaml --model o") == ["openai:", "ollama:"]
    (history / "holodeck-lsp.yaml").write_text("models:\n  - openai:gpt-4o-mini\n", "utf-8")
    # After `openai:` bash replaces only what follows the colon.
    assert _bash_line(history, "holodeck-lsp run agent.yaml --model openai:") == ["gpt-4o-mini"]
    assert _bash_line(history, "holodeck-lsp run agent.yaml --model openai:g") == ["gpt-4o-mini"]
    # Broken history: nothing from it, and nothing printed into the line.
    (history / ".holodeck" / "runs" / "tags.json").write_text("[", encoding="utf-8")
    for run in run_folders(history):
        (run / "run.json").write_text("{", encoding="utf-8")
    assert bash_complete(history, ["holodeck-lsp", "runs", "--untag", ""]) == []
    assert bash_complete(history, ["holodeck-lsp", "compare", "l"]) == []


@pytest.mark.slow
def test_bash_tab_in_a_real_terminal_inserts_a_tag_as_text(history: Path) -> None:
    old, _ = _ids(history)
    (history / ".holodeck" / "runs" / "tags.json").write_text(
        json.dumps({"version": 1, "tags": {ODD_TAG: old}}), encoding="utf-8"
    )
    for typed in ("x", "'x", '"x'):
        line = f"holodeck-lsp compare {typed}"
        assert tab_in_terminal(history, line, "y")[-1:] == [ODD_TAG], typed
    assert not (history / "PWNED").exists() and not (history / "PWNED2").exists()
    (history / "holodeck-lsp.yaml").write_text("models:\n  - ollama:qwen2.5:7b\n", "utf-8")
    line = "holodeck-lsp run agent.yaml --model ollama:q"
    words = tab_in_terminal(history, line, "7b")[-4:]
    assert words == ["run", "agent.yaml", "--model", "ollama:qwen2.5:7b"]


ZSH = shutil.which("zsh")
FISH = shutil.which("fish")


@pytest.mark.slow
@pytest.mark.skipif(ZSH is None, reason="zsh is not installed")
def test_zsh_completes_runs_with_descriptions(history: Path) -> None:
    old, new = _ids(history)
    assert ZSH is not None

    def complete(words: list[str]) -> list[str]:
        quoted = " ".join(shell_quote(word) for word in words)
        program = (
            "compdef() { :; }\n"
            f"{load_script('zsh')}\n"
            "compadd() { while (( $# )); do\n"
            '  if [[ $1 == -a ]]; then print -rl -- "${(@P)2}"; shift\n'
            '  elif [[ $1 == -d ]]; then print -rl -- "${(@P)2}"; shift\n'
            '  elif [[ $1 == -- ]]; then shift; print -rl -- "$@"; return; fi\n'
            "  shift; done }\n"
            "_files() { print -r -- '(files)' }\n"
            f"words=({quoted}); CURRENT={len(words)}; PREFIX={shell_quote(words[-1])}\n"
            "_holodeck_lsp\n"
        )
        return run_shell([ZSH, "-f", "-c", program], history).splitlines()

    shown = complete(["holodeck-lsp", "compare", ""])
    # The displays (value  -- description), then the values, then the files.
    assert shown[0].startswith(f"base  -- → {old}, ") and shown[0].endswith("cases 2/2 100%")
    assert shown[5:11] == ["base", "latest", "previous", new, old, "(files)"]
    assert complete(["holodeck-lsp", "runs", "--untag", ""])[1:] == ["base"]
    assert complete(["holodeck-lsp", "runs", "--tag", "n", ""])[5:] == [
        "base", "latest", "previous", new, old,
    ]  # fmt: skip
    assert complete(["holodeck-lsp", "run", "agent.yaml", "-k", ""]) == ["sums", "single"]
    assert complete(["holodeck-lsp", "run", "agent.yaml", "--model", ""])[:4] == [
        f"{provider.value}:" for provider in Provider
    ]


@pytest.mark.slow
@pytest.mark.skipif(FISH is None, reason="fish is not installed")
def test_fish_completes_runs_with_descriptions(history: Path) -> None:
    old, new = _ids(history)
    assert FISH is not None

    def complete(line: str) -> list[str]:
        program = f"{load_script('fish')}\ncomplete -C {shell_quote(line)}\n"
        return run_shell([FISH, "-N", "-c", program], history).splitlines()

    shown = complete("holodeck-lsp compare ")
    assert [entry.split("\t")[0] for entry in shown[:5]] == ["base", "latest", "previous", new, old]
    assert shown[0].startswith(f"base\t→ {old}, ")
    assert "bad.json" in [entry.split("\t")[0] for entry in shown]
    assert [e.split("\t")[0] for e in complete("holodeck-lsp runs --untag ")] == ["base"]
    assert [e.split("\t")[0] for e in complete("holodeck-lsp run agent.yaml -k s")] == [
        "single",
        "sums",
    ]
    models = [e.split("\t")[0] for e in complete("holodeck-lsp run agent.yaml --model ")]
    assert models == [f"{provider.value}:" for provider in Provider]
