#!/usr/bin/env python3
"""Compare holodeck-lsp's verdicts with upstream HoloDeck's on many agent files.

Upstream (holodeck-ai 0.7.1) is installed into a scratch virtual environment and driven in a
child process: the project itself never imports or depends on it. For each file the verdicts
must agree — HoloDeck loads it  <=>  holodeck-lsp reports no error (warnings are ours) —
except for the deliberate differences (`DELIBERATE`, documented in docs/diagnostics.md): a file
HoloDeck loads whose only errors are those is counted apart, not as a disagreement.

    python scripts/compare_with_upstream.py                 # corpus + generated variants
    python scripts/compare_with_upstream.py FILE_OR_DIR...  # your own files

Needs network access to PyPI the first time (to build the scratch venv).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = "holodeck-ai==0.7.1"
#: Errors we report on purpose although HoloDeck loads the file (HD125: a misspelt matcher kind).
DELIBERATE = frozenset({"HD125"})
_UPSTREAM_PROBE = """
import json, os, sys
from holodeck.config.loader import ConfigLoader
verdicts = {}
for path in sys.argv[1:]:
    # As `cd agent-folder && holodeck test agent.yaml`: HoloDeck resolves a subagent's
    # prompt_file against the current directory while it loads.
    os.chdir(os.path.dirname(path))
    try:
        ConfigLoader().load_agent_yaml(path)
        verdicts[path] = "accept"
    except BaseException as error:  # upstream raises several kinds
        verdicts[path] = f"reject: {type(error).__name__}: {error}".replace("\\n", " ")[:400]
print(json.dumps(verdicts))
"""
# One template, one placeholder varied at a time: scalars YAML 1.1 reads differently from
# 1.2, numeric ranges, matcher shapes, metric flags.
_TEMPLATE = """name: demo
model:
  provider: openai
  name: gpt-4o-mini
  temperature: TEMP
  max_tokens: MAXT
instructions:
  inline: "hi"
tools:
  - name: subtract
    type: function
    description: "a - b"
    file: tools.py
    function: subtract
evaluations:
  metrics:
    - METRIC
execution:
  parallel_test_cases: PAR
test_cases:
  - name: one
    input: INPUT
    ground_truth: GT
  - name: multi
    turns:
      - input: "what?"
        ground_truth: "1"
        expected_tools:
          - name: subtract
            count: COUNT
            args:
              a: ARG
"""
_DEFAULTS = {
    "TEMP": "0",
    "MAXT": "100",
    "METRIC": "{type: standard, metric: numeric}",
    "PAR": "2",
    "INPUT": '"hello"',
    "GT": '"4"',
    "COUNT": "1",
    "ARG": '{fuzzy: "3"}',
}
_VARIANTS = {
    "TEMP": ["3", "'0.5'", "1e0", ".5", "yes", "-0.1", "2", "~", "1.0e+0"],
    "MAXT": ["0", "1000.0", "1000.5", "'100'", "true", "-1", "0x10"],
    "METRIC": [
        "{metric: numeric}",
        "{type: standard, metric: numerc}",
        "{type: standard, metric: numeric, absolute_tolerance: -1}",
        "{type: standard, metric: numeric, absolute_tolerance: 1e-2}",
        "{type: standard, metric: numeric, absolute_tolerance: '1e-2'}",
        "{type: code, grader: 'bad path'}",
        "{type: geval, name: x, criteria: y}",
        "{type: rag, metric_type: faithfulness, threshold: 2}",
        "{type: standard, metric: equality, case_insensitive: 1}",
        "{type: standard, metric: equality, case_insensitive: 'yes'}",
        "{type: standard, metric: bleu, threshold: '0.5'}",
        "{type: unknown}",
        "{type: standard, metric: numeric, relative_tolerance: .nan}",
        "{type: standard, metric: numeric, absolute_tolerance: .inf}",
        "{type: standard, metric: numeric, retry_on_failure: 4}",
    ],
    "PAR": ["0", "'3'", "1.0", "1.5", "true"],
    "INPUT": [
        "25587",
        "1e3",
        "yes",
        "2009-01-01",
        "0x1F",
        "1:30",
        "~",
        '""',
        "'  '",
        "[a]",
        "010",
        "+1",
        "1_000",
        ".inf",
        "on",
        "y",
        "n",
        "NULL",
        "12:30:00",
    ],
    "GT": [
        "25587",
        "1e3",
        "yes",
        "2009-01-01",
        "~",
        '""',
        "-0.5",
        "1.5e+3",
        "'25587'",
        "14.1%",
        "no",
        "2001-12-14t21:59:43.10-05:00",
    ],
    "COUNT": ["0", "true", "2.0", "'2'", "2", "-1", "~"],
    "ARG": [
        "{fuzzy: 206588}",
        "{regex: '('}",
        "{fuzzy: '1', regex: 'x'}",
        "{fuzzy: '1', extra: 2}",
        "{fuzy: '1'}",
        "206588",
        "[1, 2]",
        "{mode: fast}",
        "~",
        "{regex: 5}",
        "{fuzzy: ~}",
        "{}",
    ],
}
_TOOLS = "def subtract(a: float, b: float) -> float:\n    return a - b\n"

# Loader edges (issue 15): ${VAR} values substituted into the text, empty-ish includes, a
# subagent's prompt_file, non-string args keys. Each is a folder of files; ENV is set for
# both sides.
_EDGE_AGENT = """name: demo
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: INSTR
"""
_EDGE_CASES = "test_cases:\n  - name: one\n    input: hi\n"
_CLAUDE = (
    "claude:\n  agents:\n    helper:\n      description: Looks things up.\n"
    "      prompt_file: helper.md\n"
)
_INCLUDE = _EDGE_AGENT.replace("INSTR", "hi") + "test_cases_file: cases.yaml\n"
EDGE_ENV = {
    "HDLSP_PARITY_UNCLOSED": "[unclosed",
    "HDLSP_PARITY_MAPPING": "a: b",
    "HDLSP_PARITY_COMMENT": "Be brief #not a comment",
    "HDLSP_PARITY_PLAIN": "Be brief, and exact.",
}
_EDGES: dict[str, dict[str, str]] = {
    **{
        f"env-{name.lower()}": {
            "agent.yaml": _EDGE_AGENT.replace("INSTR", f"${{HDLSP_PARITY_{name}}}") + _EDGE_CASES
        }
        for name in ("UNCLOSED", "MAPPING", "COMMENT", "PLAIN")
    },
    "env-quoted": {
        "agent.yaml": _EDGE_AGENT.replace("INSTR", '"${HDLSP_PARITY_MAPPING}"') + _EDGE_CASES
    },
    **{
        f"include-{name}": {"agent.yaml": _INCLUDE, "cases.yaml": content}
        for name, content in (
            ("mapping", "{}\n"),
            ("false", "false\n"),
            ("zero", "0\n"),
            ("list", "[]\n"),
            ("null-key", "description: none yet\ntest_cases:\n"),
            ("string", "hello\n"),
        )
    },
    "prompt-missing": {"agent.yaml": _EDGE_AGENT.replace("INSTR", "hi") + _CLAUDE + _EDGE_CASES},
    "prompt-blank": {
        "agent.yaml": _EDGE_AGENT.replace("INSTR", "hi") + _CLAUDE + _EDGE_CASES,
        "helper.md": "  \n",
    },
    "prompt-ok": {
        "agent.yaml": _EDGE_AGENT.replace("INSTR", "hi") + _CLAUDE + _EDGE_CASES,
        "helper.md": "You look things up.\n",
    },
    "args-int-key": {
        "agent.yaml": _EDGE_AGENT.replace("INSTR", "hi")
        + "test_cases:\n  - name: one\n    input: hi\n    expected_tools:\n"
        + "      - name: lookup\n        args: {1: 2}\n"
    },
}


#: What holodeck-ai 0.7.1 said of each edge (last run: see docs/checks.md). The test suite
#: checks holodeck-lsp against this record without HoloDeck (tests/checker/
#: test_upstream_edges.py); this script checks the record against HoloDeck itself.
UPSTREAM_EDGE_VERDICTS = {
    "env-unclosed": "reject",
    "env-mapping": "reject",
    "env-comment": "accept",
    "env-plain": "accept",
    "env-quoted": "accept",
    "include-mapping": "accept",
    "include-false": "accept",
    "include-zero": "accept",
    "include-list": "accept",
    "include-null-key": "reject",
    "include-string": "reject",
    "prompt-missing": "reject",
    "prompt-blank": "reject",
    "prompt-ok": "accept",
    "args-int-key": "accept",
}


def write_edges(folder: Path) -> list[Path]:
    files = []
    for name, contents in _EDGES.items():
        case = folder / name
        case.mkdir(parents=True)
        for file, text in contents.items():
            (case / file).write_text(text, encoding="utf-8")
        files.append(case / "agent.yaml")
    return files


def write_variants(folder: Path) -> list[Path]:
    files = []
    for placeholder, values in _VARIANTS.items():
        for number, value in enumerate(values):
            text = _TEMPLATE
            for name, default in _DEFAULTS.items():
                text = text.replace(name, value if name == placeholder else default, 1)
            case = folder / f"{placeholder.lower()}-{number:02d}"
            case.mkdir(parents=True)
            (case / "agent.yaml").write_text(text, encoding="utf-8")
            (case / "tools.py").write_text(_TOOLS, encoding="utf-8")
            files.append(case / "agent.yaml")
    return files


def upstream_python(venv: Path) -> Path:
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", UPSTREAM], check=True)
    return python


def agent_files(arguments: list[str]) -> list[Path]:
    files: list[Path] = []
    for argument in arguments:
        path = Path(argument)
        files.extend(sorted(path.rglob("agent.yaml")) if path.is_dir() else [path])
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="agent files or folders (default: corpus)")
    parser.add_argument(
        "--venv", type=Path, default=Path(tempfile.gettempdir()) / "holodeck-upstream"
    )
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="parity-"))
    files = (
        agent_files(args.paths)
        if args.paths
        else [
            *agent_files([str(ROOT / "tests" / "corpus")]),
            *write_variants(scratch / "variants"),
            *write_edges(scratch / "edges"),
        ]
    )
    files = [f.resolve() for f in files]
    home = scratch / "home"  # no developer ~/.holodeck/config.yaml on either side
    home.mkdir()
    env = {**os.environ, **EDGE_ENV, "HOME": str(home)}
    upstream = subprocess.run(
        [str(upstream_python(args.venv)), "-c", _UPSTREAM_PROBE, *map(str, files)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    theirs: dict[str, str] = json.loads(upstream.stdout)

    from holodeck_lsp.checker.loader import LoadOptions, load_agent_file

    disagreements = deliberate = 0
    for file in files:
        result = load_agent_file(file, options=LoadOptions(home=home, env=env))
        ours_accepts = not result.errors
        theirs_accepts = theirs[str(file)] == "accept"
        if theirs_accepts and {d.code.value for d in result.errors} <= DELIBERATE:
            deliberate += not ours_accepts
            continue
        if ours_accepts != theirs_accepts:
            disagreements += 1
            print(f"DISAGREE {file}\n  upstream: {theirs[str(file)]}")
            for diagnostic in result.errors:
                print(f"  ours: {diagnostic.code} {diagnostic.message}")
    for file in files:
        recorded = UPSTREAM_EDGE_VERDICTS.get(file.parent.name)
        if "edges" in file.parts and recorded != theirs[str(file)].split(":")[0]:
            disagreements += 1
            print(f"STALE RECORD {file.parent.name}: recorded {recorded}, upstream now says")
            print(f"  {theirs[str(file)]}")
    print(
        f"{len(files) - disagreements}/{len(files)} files: same verdict as {UPSTREAM}"
        f" ({deliberate} of them only by a deliberate difference: {', '.join(sorted(DELIBERATE))})"
    )
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
