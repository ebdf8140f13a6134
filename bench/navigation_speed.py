"""Semantic tokens and rename speed, in-process on the ConvFinQA yardstick files: semantic
tokens full on 100 dialogues (target ≤ 50 ms), a delta after a one-line edit (≤ 20 ms), and a
tool rename across a 1,000-case suite, the agent plus its `test_cases_file` include (≤ 300 ms).
Times the same functions the server's handlers call (`token_spans` + `encode` + `delta_edit`,
`named_at` + `rename_edit`), from a composed tree for tokens (the server has it cached) and
from the text for rename (the include is read from disk). Prints median of 5 and PASS/FAIL."""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

from lsprotocol import types

from holodeck_lsp.checker.yaml_document import compose
from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.positions import PositionConverter
from holodeck_lsp.server.documents.token_spans import token_spans
from holodeck_lsp.server.features.rename import named_at, rename_edit
from holodeck_lsp.server.features.semantic_tokens import delta_edit, encode

try:  # run as a script (bench/ on sys.path) or imported as bench.navigation_speed
    from shared_folder import default_shared, generate_yardstick
except ImportError:
    from bench.shared_folder import default_shared, generate_yardstick

REPO = Path(__file__).resolve().parents[1]
OUT = Path(__file__).with_name("out") / "navigation_speed"


def generate(cases: int, shared: Path) -> Path:
    agent = OUT / f"cases{cases}" / "agent.yaml"
    if agent.is_file():
        return agent
    return generate_yardstick(shared, cases, agent, script="navigation_speed")


def median_ms(run: Any, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def split_suite(agent: Path) -> Path:
    """The 1,000-case agent with its cases moved to a `test_cases_file` include."""
    text = agent.read_text(encoding="utf-8")
    head, _, cases = text.partition("test_cases:\n")
    folder = agent.parent / "split"
    folder.mkdir(exist_ok=True)
    for extra in agent.parent.glob("*.py"):
        (folder / extra.name).write_text(extra.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "cases.yaml").write_text("test_cases:\n" + cases, encoding="utf-8")
    (folder / "agent.yaml").write_text(head + "test_cases_file: cases.yaml\n", encoding="utf-8")
    return folder / "agent.yaml"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=default_shared())
    parser.add_argument("--no-fail", action="store_true", help="exit 0 even when a target fails")
    args = parser.parse_args()
    results: list[tuple[str, float, float]] = []
    hundred = generate(100, args.shared)
    text = hundred.read_text(encoding="utf-8")
    root = compose(text)
    converter = PositionConverter(text, "utf-16")
    base = encode(token_spans(root), converter)
    results.append(
        (
            "semantic tokens full, 100 dialogues",
            median_ms(lambda: encode(token_spans(root), converter)),
            50.0,
        )
    )
    lines = text.split("\n")
    index = next(i for i, line in enumerate(lines) if "ground_truth" in line)
    lines[index] = lines[index] + "  # edited"
    edited = "\n".join(lines)
    edited_root = compose(edited)
    edited_converter = PositionConverter(edited, "utf-16")

    def delta() -> None:
        delta_edit(base, encode(token_spans(edited_root), edited_converter))

    results.append(("semantic tokens delta, 100 dialogues", median_ms(delta), 20.0))

    agent = split_suite(generate(1000, args.shared))
    from pygls.workspace import Workspace

    server = HolodeckServer()
    server.protocol._workspace = Workspace(None)  # what `initialize` sets up: no open files
    agent_text = agent.read_text(encoding="utf-8")
    agent_lines = agent_text.split("\n")
    tool_line = next(i for i, line in enumerate(agent_lines) if '- name: "subtract"' in line)
    column = agent_lines[tool_line].index("subtract") + 1
    where = types.Position(tool_line, column)
    uri = agent.as_uri()

    def rename() -> None:
        vars(server).pop("_holodeck_suite_files", None)  # cold: parse both files again
        named = named_at(server, uri, where, lambda _uri: set())
        assert named is not None
        edit, _left = rename_edit(named, "renamed_tool")
        assert edit.changes

    # Nothing cached: both files composed by the request itself (informational — in the
    # server the agent's check has composed the include before any request can come).
    cold = median_ms(rename, 3)

    from holodeck_lsp.checker.loader import load_agent_file
    from holodeck_lsp.server.documents.suite_files import suite_files

    vars(server).pop("_holodeck_suite_files", None)
    checked = load_agent_file(agent)
    for file, document in checked.included.items():  # what DiagnosticsEngine.accept hands on
        suite_files(server).offer(Path(file), document.text, document.root)

    def rename_after_check() -> None:
        named = named_at(server, uri, where, lambda _uri: set())
        assert named is not None
        edit, _left = rename_edit(named, "renamed_tool")
        assert sum(len(edits) for edits in (edit.changes or {}).values()) > 1000, edit.changes

    first = median_ms(rename_after_check, 1)
    results.append(("rename across 1,000 cases, first after check", first, 300.0))
    results.append(("rename across 1,000 cases, again", median_ms(rename_after_check), 300.0))
    print(f"(nothing cached, both files composed by the request: {cold:.0f} ms)")
    failed = False
    for label, value, target in results:
        ok = value <= target
        failed |= not ok
        print(f"{label:48s} {value:8.1f} ms  target ≤ {target:.0f}  {'PASS' if ok else 'FAIL'}")
    return 1 if failed and not args.no_fail else 0


if __name__ == "__main__":
    raise SystemExit(main())
