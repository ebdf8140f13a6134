"""docs/ci/holodeck-shards.yml, the matrix workflow of docs/running.md ("Splitting a suite
across machines"): valid GitHub Actions YAML, a job per shard, every holodeck-lsp command in
it parses with the real command's parser, and the docs include the file verbatim."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from holodeck_lsp.commands.compare import _parser as compare_parser
from holodeck_lsp.commands.merge import merge_parser
from holodeck_lsp.commands.report import report_parser
from holodeck_lsp.commands.run.options import run_parser

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "docs" / "ci" / "holodeck-shards.yml"
PARSERS = {
    "run": run_parser,
    "merge": merge_parser,
    "compare": compare_parser,
    "report": report_parser,
}


def _workflow() -> Any:
    return YAML(typ="safe").load(WORKFLOW.read_text(encoding="utf-8"))


def test_a_job_per_shard_then_a_merge() -> None:
    jobs = _workflow()["jobs"]
    shards = jobs["shard"]["strategy"]["matrix"]["shard"]
    assert shards == [1, 2, 3, 4]
    assert jobs["merge"]["needs"] == "shard"
    runs = [step["run"] for step in jobs["shard"]["steps"] if "run" in step]
    assert any("--shard ${{ matrix.shard }}/4" in run for run in runs)
    merge = next(
        s["run"] for s in jobs["merge"]["steps"] if "holodeck-lsp merge" in s.get("run", "")
    )
    assert all(f"shard-{k}.json" in merge for k in shards)


def test_every_holodeck_command_parses() -> None:
    seen = set()
    for job in _workflow()["jobs"].values():
        for step in job["steps"]:
            for command in re.split(r"&&|\|\|", step.get("run", "")):
                words = shlex.split(command.replace("${{ matrix.shard }}", "2"))
                if words[:1] != ["holodeck-lsp"]:
                    continue
                words = [w for w in words if not w.startswith((">", "$GITHUB"))]
                PARSERS[words[1]]().parse_args(words[2:])  # SystemExit on an unknown option
                seen.add(words[1])
    assert seen == set(PARSERS)


def test_running_docs_include_the_workflow_verbatim() -> None:
    text = (ROOT / "docs" / "running.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- ci/holodeck-shards.yml -->\n```yaml\n(.*?)```\n", text, re.S)
    assert block is not None, "docs/running.md must include docs/ci/holodeck-shards.yml"
    assert block.group(1) == WORKFLOW.read_text(encoding="utf-8")
