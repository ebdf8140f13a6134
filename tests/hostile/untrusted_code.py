"""A hostile workspace, made by a generator: every way an agent file can name Python code —
a grader module beside the agent, a grader in a package (its `__init__` runs on import), a
grader found only through PYTHONPATH, a function tools module, an MCP server's command — each
of which leaves a marker file when it runs. Opening, checking, listing or comparing such a
workspace must leave no marker unless the user trusted it (docs/checks.md, "What can run
your code"). Shared by tests/hostile/, tests/server/test_untrusted_workspace.py and
tests/cli/test_untrusted_cli.py."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

#: Module bodies: the marker first, then what the agent asks of the module.
_MODULE = """from pathlib import Path as _Path

_Path({marker!r}).write_text("imported", encoding="utf-8")


def grade(context):
    return 1.0


def subtract(a: float, b: float) -> float:
    return a - b
"""

#: The cases of tests/server/runs/run_suite.py (inputs and names unchanged, so that runs
#: stored from that suite are this agent's runs and its turns compare with them).
_CASES = """test_cases:
  - name: two-turns
    turns:
      - input: "q0"
        ground_truth: "10"
      - input: "q1"
        ground_truth: "5"
        expected_tools:
          - name: subtract
            args:
              a: 10
              b: 5
  - name: single
    input: "q2"
    ground_truth: "7"
"""

_HEAD = """name: runs
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: "Answer."
tools:
  - name: subtract
    type: function
    description: "a - b"
    file: hostile_tools.py
    function: subtract
  - name: probe
    type: mcp
    description: "an MCP server whose start leaves a marker"
    transport: stdio
    command: node
    args: ["-e", {node_script}]
evaluations:
  metrics:
    - type: standard
      metric: numeric
{metrics}"""

#: Where a grader module is found: `spec` is what agent.yaml names.
GRADERS = {
    "grader": "hostile_grader:grade",
    "package_init": "hostile_pkg.graders:grade",
    "path_only": "path_only_grader:grade",
}
#: Every marker a hostile workspace can leave.
MARKERS = ("grader", "package_init", "package_module", "path_only", "tools", "mcp_server")


@dataclass(frozen=True, slots=True)
class HostileWorkspace:
    #: The workspace folder (agent.yaml, its modules, an include and a second agent).
    root: Path
    #: A folder only PYTHONPATH reaches (`env` puts it there).
    site: Path
    #: Where the hostile code leaves its markers (outside the workspace).
    markers: Path

    @property
    def agent(self) -> Path:
        return self.root / "agent.yaml"

    @property
    def files(self) -> list[Path]:
        """The workspace's YAML files: agent.yaml, other.agent.yaml and its include."""
        return [self.agent, self.root / "other.agent.yaml", self.root / "other_cases.yaml"]

    def imported(self) -> list[str]:
        """The markers left: the hostile code that ran."""
        return sorted(p.name for p in self.markers.iterdir()) if self.markers.exists() else []

    def env(self, base: dict[str, str]) -> dict[str, str]:
        """`base` with the PYTHONPATH-only folder on PYTHONPATH."""
        return {**base, "PYTHONPATH": str(self.site)}

    def clear(self) -> None:
        for marker in self.markers.iterdir():
            marker.unlink()


def _module(workspace: HostileWorkspace, marker: str) -> str:
    return _MODULE.format(marker=str(workspace.markers / marker))


def agent_text(workspace: HostileWorkspace, specs: list[str] | None = None) -> str:
    """The hostile agent.yaml: run_suite's cases, a function tool, an MCP server, and one code
    metric per grader in `specs` (default: every one of `GRADERS`)."""
    chosen = list(GRADERS.values()) if specs is None else specs
    metrics = "".join(f'    - type: code\n      grader: "{spec}"\n' for spec in chosen)
    script = f"require('fs').writeFileSync({str(workspace.markers / 'mcp_server')!r}, 'x')"
    return _HEAD.format(node_script=json.dumps(script), metrics=metrics) + _CASES


def write_modules(workspace: HostileWorkspace) -> None:
    """The Python the agent names, each module leaving its marker when imported."""
    root, site = workspace.root, workspace.site
    (root / "hostile_grader.py").write_text(_module(workspace, "grader"), encoding="utf-8")
    package = root / "hostile_pkg"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text(_module(workspace, "package_init"), encoding="utf-8")
    (package / "graders.py").write_text(_module(workspace, "package_module"), encoding="utf-8")
    (site / "path_only_grader.py").write_text(_module(workspace, "path_only"), encoding="utf-8")
    (root / "hostile_tools.py").write_text(_module(workspace, "tools"), encoding="utf-8")


def write_other_agent(workspace: HostileWorkspace) -> None:
    """A second agent whose cases are an include, each case naming graders of its own."""
    head = agent_text(workspace, []).split("test_cases:")[0]
    (workspace.root / "other.agent.yaml").write_text(
        head + "test_cases_file: other_cases.yaml\n", encoding="utf-8"
    )
    cases = "".join(
        f'- name: case-{name}\n  input: "q"\n  ground_truth: "1"\n  evaluations:\n'
        f'    - type: code\n      grader: "{spec}"\n'
        for name, spec in GRADERS.items()
    )
    (workspace.root / "other_cases.yaml").write_text(cases, encoding="utf-8")


def make_workspace(base: Path, *, agent: bool = True) -> HostileWorkspace:
    """Write a hostile workspace under `base` (`agent=False`: all but agent.yaml, for a test
    that stores runs of another agent.yaml first)."""
    workspace = HostileWorkspace(base / "workspace", base / "site", base / "markers")
    for folder in (workspace.root, workspace.site, workspace.markers):
        folder.mkdir(parents=True, exist_ok=True)
    write_modules(workspace)
    write_other_agent(workspace)
    if agent:
        write_agent(workspace)
    return workspace


def write_agent(workspace: HostileWorkspace) -> Path:
    workspace.agent.write_text(agent_text(workspace), encoding="utf-8")
    return workspace.agent


@dataclass(frozen=True, slots=True)
class CodeCase:
    """One generated way for an agent file to name code: where the grader is named and how
    its module is found (`files`: path -> text, relative to the agent's folder, or to the
    PYTHONPATH-only folder under `site/`)."""

    name: str
    agent: str
    files: dict[str, str]
    #: The markers importing the case's code leaves (`--trust` imports it).
    markers: tuple[str, ...]


#: How the grader module is found -> (its spec, its files, their markers).
_MODULE_KINDS: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "beside": ("{tag}_beside:grade", (("{tag}_beside.py", "beside"),)),
    "package": (
        "{tag}_pkg.graders:grade",
        (("{tag}_pkg/__init__.py", "pkg_init"), ("{tag}_pkg/graders.py", "pkg_module")),
    ),
    "nested": (
        "{tag}_outer.inner.graders:grade",
        (
            ("{tag}_outer/__init__.py", "outer_init"),
            ("{tag}_outer/inner/__init__.py", "inner_init"),
            ("{tag}_outer/inner/graders.py", "nested_module"),
        ),
    ),
    "namespace": ("{tag}_ns.graders:grade", (("{tag}_ns/graders.py", "ns_module"),)),
    "path_only": ("{tag}_on_path:grade", (("site/{tag}_on_path.py", "path_only"),)),
}
#: Where agent.yaml names the grader -> the agent text (`{spec}` is the grader).
_PLACES: dict[str, str] = {
    "agent_metric": (
        'evaluations:\n  metrics:\n    - type: code\n      grader: "{spec}"\n'
        'test_cases:\n  - name: one\n    input: "q"\n'
    ),
    "case_metric": (
        'test_cases:\n  - name: one\n    input: "q"\n    evaluations:\n'
        '      - type: code\n        grader: "{spec}"\n'
    ),
    "turn_metric": (
        'test_cases:\n  - name: one\n    turns:\n      - input: "q"\n        evaluations:\n'
        '          - type: code\n            grader: "{spec}"\n'
    ),
    "tool_file": (
        "tools:\n  - name: grade\n    type: function\n    description: d\n"
        '    file: "{tool_file}"\n    function: grade\n'
        'test_cases:\n  - name: one\n    input: "q"\n'
    ),
}
_AGENT_HEAD = (
    "name: hostile\nmodel:\n  provider: openai\n  name: gpt-4o-mini\n"
    'instructions:\n  inline: "Answer."\n'
)


def code_cases(markers: Path) -> list[CodeCase]:
    """Every place × every module kind, each case with modules of its own (`tag`)."""
    cases: list[CodeCase] = []
    for place, template in _PLACES.items():
        for kind, (spec, modules) in _MODULE_KINDS.items():
            if place == "tool_file" and kind not in ("beside", "package"):
                continue  # a tool's `file:` is a path below the agent's folder
            tag = f"{place}_{kind}"
            files = {
                path.format(tag=tag): _MODULE.format(marker=str(markers / f"{tag}.{marker}"))
                for path, marker in modules
            }
            named = [path.format(tag=tag) for path, _ in modules]
            text = _AGENT_HEAD + template.format(spec=spec.format(tag=tag), tool_file=named[-1])
            # `check --trust` imports graders, never tool files (only a run does).
            markers_left = () if place == "tool_file" else tuple(f"{tag}.{m}" for _, m in modules)
            cases.append(CodeCase(tag, text, files, markers_left))
    return cases


def write_code_case(case: CodeCase, folder: Path, site: Path) -> Path:
    """The case's agent file (`<name>.agent.yaml`) and modules in `folder` (`site/…` in
    `site`); returns the agent file."""
    for relative, text in case.files.items():
        target = (
            site / relative.removeprefix("site/")
            if relative.startswith("site/")
            else folder / relative
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    agent = folder / f"{case.name}.agent.yaml"
    agent.write_text(case.agent, encoding="utf-8")
    return agent
