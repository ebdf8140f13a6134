"""`holodeck-lsp import`'s datasets come from one registry (commands/import_/registry.py):
an importer registered there — here a test one, registered in the test alone — is in `import
--help`, the top `--help`, the unknown-dataset message and shell completion, and runs, with
no other edit."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from holodeck_lsp import cli
from holodeck_lsp.commands.import_ import registry
from holodeck_lsp.commands.import_.protocol import ImportRefused, ImportResult, ImportWriteFailed
from holodeck_lsp.commands.shell_completion.command_table import find_command


class WidgetImporter:
    """Writes one agent file of N cases; refuses a source named `bad`, fails to write into a
    folder named `blocked`."""

    name = "widgets"
    description = "the widget benchmark as a suite"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("source", type=Path, metavar="FILE")
        parser.add_argument("--out", type=Path, required=True, metavar="DIR")
        parser.add_argument("--widget-count", type=int, default=1, help="cases to write")

    def run(self, args: argparse.Namespace) -> ImportResult:
        if args.source.name == "bad":
            raise ImportRefused(f"{args.source} is no widget file: pass the widgets' JSON")
        if args.out.name == "blocked":
            raise ImportWriteFailed(f"cannot write {args.out / 'agent.yaml'}: blocked")
        agent = args.out / "agent.yaml"
        agent.parent.mkdir(parents=True, exist_ok=True)
        agent.write_text("name: widgets\n", encoding="utf-8")
        return ImportResult(
            output=args.out,
            files_written=(agent,),
            cases=args.widget_count,
            warnings=("two widgets share a name",),
            summary=f"wrote {args.widget_count} widget cases to {agent}",
        )


@pytest.fixture
def widgets(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one registration adding an importer takes (undone after the test)."""
    monkeypatch.setattr(registry, "_REGISTERED", list(registry._REGISTERED))
    registry.register(WidgetImporter())


def test_the_built_in_importers_are_registered() -> None:
    assert [importer.name for importer in registry.importers()] == [
        "convfinqa",
        "bfcl",
        "tau2",
        "otel",
    ]
    for importer in registry.importers():
        assert importer.description and "\n" not in importer.description
        importer.add_arguments(argparse.ArgumentParser())


def test_a_registered_importer_is_in_every_help(
    widgets: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["import", "--help"]) == 0
    assert "  widgets    the widget benchmark as a suite" in capsys.readouterr().out
    assert cli.main(["--help"]) == 0
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "import DATASET" in line]
    # The datasets once, from the registry (no hand-kept list beside them).
    assert line.endswith("(convfinqa, bfcl, tau2, otel, widgets; docs/importing.md)")
    assert line.count("convfinqa") == 1
    assert cli.main(["import", "widgest"]) == 2
    err = capsys.readouterr().err
    assert (
        "did you mean `widgets`?" in err and "datasets: convfinqa, bfcl, tau2, otel, widgets" in err
    )
    assert cli.main(["import", "widgets", "--help"]) == 0
    assert "--widget-count" in capsys.readouterr().out


def test_a_registered_importer_is_completed(widgets: None) -> None:
    command = find_command(cli.COMMANDS, "import")
    assert command is not None
    assert command.positional == ("convfinqa", "bfcl", "tau2", "otel", "widgets")
    assert any(option.names == ("--widget-count",) for option in command.options)


def test_a_registered_importer_runs_and_its_result_is_said(
    widgets: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "suite"
    assert cli.main(["import", "widgets", "w.json", "--out", str(out), "--widget-count", "3"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "holodeck-lsp: warning: two widgets share a name",
        f"wrote 3 widget cases to {out / 'agent.yaml'}",
        f"next: holodeck-lsp check {out}",
    ]
    assert (out / "agent.yaml").is_file()


def test_an_importer_refusing_or_failing_to_write_exits_2_or_3(
    widgets: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["import", "widgets", "bad", "--out", str(tmp_path)]) == 2
    assert "error: bad is no widget file: pass the widgets' JSON" in capsys.readouterr().err
    blocked = tmp_path / "blocked"
    assert cli.main(["import", "widgets", "w.json", "--out", str(blocked)]) == 3
    assert f"error: cannot write {blocked / 'agent.yaml'}: blocked" in capsys.readouterr().err
