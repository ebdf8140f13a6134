#!/usr/bin/env python3
"""Regenerate the files in sample/ that the importers write, or check that they are unchanged.

The two samples are importer output, committed so that they run from a fresh clone:

* sample/financial-assistant: `agent.yaml`, `data/convfinqa_subset.json` and
  `data/documents/` are written by `scripts/convert_convfinqa.py` (a wrapper of `holodeck-lsp
  import convfinqa`) from ConvFinQA's dev split; `tools.py`, `graders.py` and `convfinqa.py`
  are the files the importer ships (holodeck_lsp/importers/convfinqa/suite.py, SUPPORT_FILES).
* sample/bfcl-multi-turn: everything `holodeck-lsp import bfcl` writes — `agent.yaml`,
  `tools.py` and `data/` from the bfcl-eval wheel, `bfcl_state.py`, `bfcl_grader.py` and
  `bfcl_classes/` copied from holodeck_lsp/importers/bfcl/suite_files/.
* sample/tau2-retail: everything `holodeck-lsp import tau2` writes from the trimmed τ²-bench
  checkout committed for the tests (tests/importers/tau2_fixture, MIT) — `agent.yaml`,
  `tools_retail.py`, `prompts/` and `tau2_bench/data/` from it, `tau2_state.py`,
  `tau2_grader.py` and `tau2_bench/` (τ²'s code) copied from
  holodeck_lsp/importers/tau2/suite_files/.

These files are marked `linguist-generated` in .gitattributes: edit the importer, then run

    python scripts/regenerate_samples.py [--convfinqa-source FILE] [--bfcl-wheel WHEEL]
    python scripts/regenerate_samples.py --check     # exit 1 and name each file that differs

Neither input is in the repository. ConvFinQA's dev file is found as the converter finds it
(`--convfinqa-source` or `$CONVFINQA_SOURCE`; docs/importing.md says where to get it); without
it, `agent.yaml` and `data/documents/` are rebuilt from the committed subset (which keeps each
chosen record whole) and the subset itself is left as it is. The bfcl-eval wheel comes from
`pip download --no-deps bfcl-eval -d bfcl` (`--bfcl-wheel` or `$HOLODECK_BFCL_WHEEL`);
without it only the copied files are regenerated.
The tests run `--check` with what this machine has (tests/sample/test_regenerate_samples.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # run from a checkout without installing it too

from holodeck_lsp.importers.bfcl.importer import COPIED, SUITE_FILES  # noqa: E402
from holodeck_lsp.importers.convfinqa.suite import SUPPORT_FILES  # noqa: E402
from holodeck_lsp.importers.tau2.importer import copied_files as tau2_copied  # noqa: E402

FINANCIAL = Path("sample") / "financial-assistant"
BFCL = Path("sample") / "bfcl-multi-turn"
CONVERTER = REPO / FINANCIAL / "scripts" / "convert_convfinqa.py"
SUBSET = "data/convfinqa_subset.json"
DOCUMENTS = "data/documents"
#: The converter's options the sample was written with (its README shows the same command).
CONVERTER_OPTIONS = ("--split", "dev", "--n", "10")
#: The import the bfcl sample was written with (its README shows the same command).
BFCL_OPTIONS = ("--n", "20", "--classes", "GorillaFileSystem,TwitterAPI,MathAPI")
#: What `import bfcl` writes from the wheel itself, beside the copied files.
BFCL_FROM_WHEEL = (
    "agent.yaml",
    "tools.py",
    "data/BFCL_v4_multi_turn_base.json",
    "data/possible_answer/BFCL_v4_multi_turn_base.json",
)
WHEEL_SOURCE = "pip download --no-deps bfcl-eval -d bfcl"
TAU2 = Path("sample") / "tau2-retail"
#: The τ² checkout the sample is imported from (trimmed, committed for the tests).
TAU2_SOURCE = Path("tests") / "importers" / "tau2_fixture"
#: The import the tau2 sample was written with (its README shows the same command).
TAU2_OPTIONS = ("--domains", "retail", "--name", "tau2-retail")
#: What `import tau2` writes from the checkout itself, beside the copied files.
TAU2_FROM_CHECKOUT = ("agent.yaml", "tools_retail.py", "prompts/retail_agent.md")


class RegenerationFailed(Exception):
    """An importer could not write the sample; the message names the command and its error."""


def convfinqa_source(explicit: str | None) -> Path | None:
    """The ConvFinQA dev file: the option, else $CONVFINQA_SOURCE (None: not given)."""
    chosen = explicit or os.environ.get("CONVFINQA_SOURCE")
    if chosen:
        return Path(chosen) if Path(chosen).is_file() else None
    return None


def _run(command: Sequence[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        shown = " ".join(command)
        raise RegenerationFailed(f"`{shown}` failed ({done.returncode}): {done.stderr.strip()}")


def _files_under(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def _subset_as_source(work: Path) -> Path:
    """The committed subset's records as a ConvFinQA file: the same dialogues, pages and
    agent.yaml come out of it (only the subset's `source` and `passed_over` would differ)."""
    subset = json.loads((REPO / FINANCIAL / SUBSET).read_text(encoding="utf-8"))
    keys = ("id", "doc", "dialogue", "features")
    records = [{key: dialogue[key] for key in keys} for dialogue in subset["dialogues"]]
    source = work / "rebuilt.json"
    source.write_text(json.dumps({"dev": records}), encoding="utf-8")
    return source


def convfinqa_files(source: Path | None, work: Path) -> tuple[dict[str, bytes], list[str]]:
    """sample/financial-assistant's generated files (path inside the sample -> bytes), and
    notes on what could not be regenerated here."""
    files = {name: shipped.read_bytes() for name, shipped in SUPPORT_FILES.items()}
    notes: list[str] = []
    if source is None:
        notes.append(
            "ConvFinQA dev file not given (--convfinqa-source or $CONVFINQA_SOURCE): "
            f"{FINANCIAL / SUBSET} left as it is; "
            "agent.yaml and data/documents/ rebuilt from it"
        )
    out = work / "convfinqa"
    _run(
        [sys.executable, str(CONVERTER), "--source", str(source or _subset_as_source(work)),
         *CONVERTER_OPTIONS, "--out", str(out / SUBSET), "--agent-yaml", str(out / "agent.yaml")]
    )  # fmt: skip
    written = _files_under(out)
    if source is None:
        written.pop(SUBSET)
    return files | written, notes


def bfcl_files(wheel: Path | None, work: Path) -> tuple[dict[str, bytes], list[str]]:
    """sample/bfcl-multi-turn's generated files, and notes on what could not be regenerated."""
    if wheel is None:
        copied = {relative: (SUITE_FILES / relative).read_bytes() for relative in COPIED}
        note = (
            f"bfcl-eval wheel not given (--bfcl-wheel or $HOLODECK_BFCL_WHEEL; get it with "
            f"`{WHEEL_SOURCE}`): {', '.join(BFCL_FROM_WHEEL)} of {BFCL} left as they are"
        )
        return copied, [note]
    out = work / "bfcl"
    _run(
        [sys.executable, "-m", "holodeck_lsp", "import", "bfcl", str(wheel), "--out", str(out),
         *BFCL_OPTIONS]
    )  # fmt: skip
    return _files_under(out), []


def tau2_files(work: Path) -> tuple[dict[str, bytes], list[str]]:
    """sample/tau2-retail's generated files, and notes on what could not be regenerated."""
    source = REPO / TAU2_SOURCE
    if not source.is_dir():
        note = f"{TAU2_SOURCE} absent: only the files copied from the importer regenerated"
        return tau2_copied(), [note]
    out = work / "tau2"
    _run(
        [sys.executable, "-m", "holodeck_lsp", "import", "tau2", str(source), "--out", str(out),
         *TAU2_OPTIONS]
    )  # fmt: skip
    return _files_under(out), []


def _tau2_data() -> list[str]:
    data = REPO / TAU2 / "tau2_bench" / "data"
    return [p.relative_to(REPO / TAU2).as_posix() for p in sorted(data.rglob("*")) if p.is_file()]


def generated_paths() -> list[str]:
    """Every file of sample/ this script writes when it has both inputs (repository-relative,
    POSIX): exactly the paths .gitattributes marks `linguist-generated`."""
    documents = sorted(p.name for p in (REPO / FINANCIAL / DOCUMENTS).iterdir())
    financial = ["agent.yaml", SUBSET, *SUPPORT_FILES, *(f"{DOCUMENTS}/{d}" for d in documents)]
    bfcl = [*BFCL_FROM_WHEEL, *COPIED]
    tau2 = [*TAU2_FROM_CHECKOUT, *_tau2_data(), *tau2_copied()]
    paths = [(FINANCIAL / p).as_posix() for p in financial] + [(BFCL / p).as_posix() for p in bfcl]
    return sorted(paths + [(TAU2 / p).as_posix() for p in tau2])


def _differences(sample: Path, files: dict[str, bytes]) -> list[str]:
    return [
        (sample / relative).as_posix()
        for relative, content in sorted(files.items())
        if not (REPO / sample / relative).is_file()
        or (REPO / sample / relative).read_bytes() != content
    ]


def _write(sample: Path, files: dict[str, bytes]) -> list[str]:
    changed = _differences(sample, files)
    for relative, content in files.items():
        target = REPO / sample / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if (sample / relative).as_posix() in changed:
            target.write_bytes(content)
    return changed


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 on a change")
    parser.add_argument("--list", action="store_true", help="print the generated paths and exit")
    parser.add_argument("--convfinqa-source", metavar="FILE", help="ConvFinQA's dev JSON file")
    parser.add_argument(
        "--bfcl-wheel", metavar="WHEEL", default=os.environ.get("HOLODECK_BFCL_WHEEL"),
        help=f"the bfcl-eval wheel (default $HOLODECK_BFCL_WHEEL; `{WHEEL_SOURCE}`)",
    )  # fmt: skip
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.list:
        print("\n".join(generated_paths()))
        return 0
    wheel = Path(args.bfcl_wheel) if args.bfcl_wheel else None
    if wheel is not None and not wheel.is_file():
        print(
            f"error: no bfcl-eval wheel at {wheel}; get it with `{WHEEL_SOURCE}`", file=sys.stderr
        )
        return 2
    try:
        with tempfile.TemporaryDirectory(prefix="regenerate-samples-") as tmp:
            work = Path(tmp)
            convfinqa, convfinqa_notes = convfinqa_files(
                convfinqa_source(args.convfinqa_source), work
            )
            bfcl, bfcl_notes = bfcl_files(wheel, work)
            tau2, tau2_notes = tau2_files(work)
    except RegenerationFailed as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for note in convfinqa_notes + bfcl_notes + tau2_notes:
        print(f"note: {note}", file=sys.stderr)
    act = _differences if args.check else _write
    changed = act(FINANCIAL, convfinqa) + act(BFCL, bfcl) + act(TAU2, tau2)
    checked = len(convfinqa) + len(bfcl) + len(tau2)
    if args.check:
        for path in changed:
            print(f"{path} differs from what the importer writes")
        print(f"{len(changed)} of {checked} generated files differ")
        return 1 if changed else 0
    print(f"{len(changed)} of {checked} generated files rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
