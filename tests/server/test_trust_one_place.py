"""One place decides whether a workspace's code may run: `server/trust.py` (docs/checks.md,
"What can run your code"). Read from the server's source: no other module makes load options,
reads the trust setting, opens a run session, passes `trusted=` or reaches the modules that
import or probe user code — so a new feature cannot load with trust of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import holodeck_lsp.server

SERVER = Path(holodeck_lsp.server.__file__).resolve().parent
#: The one place, and where the setting is read from the client.
ALLOWED = {SERVER / "trust.py", SERVER / "settings.py"}
#: Modules that import, probe or run user code: only through trust.py's decision.
USER_CODE_MODULES = (
    "holodeck_lsp.runner.agent_code",
    "holodeck_lsp.checker.graders.trusted",
    "holodeck_lsp.checker.graders.child_process",
    "holodeck_lsp.checker.grader_checks",
    "subprocess",
)


def _problems(text: str, label: str) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(text, label)):
        where = f"{label}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func)
            if name.endswith("LoadOptions"):
                found.append(f"{where}: LoadOptions(...) — use trust.load_options")
            if name.endswith("RunSession.open"):
                found.append(f"{where}: RunSession.open — use trust.open_run_session")
            if any(keyword.arg == "trusted" for keyword in node.keywords):
                found.append(f"{where}: trusted=… — trust.load_options decides")
            if name.endswith("create_subprocess_exec") or name.endswith("create_subprocess_shell"):
                found.append(f"{where}: a child process — not in the server")
        elif isinstance(node, ast.Attribute) and node.attr == "trusted":
            if ast.unparse(node.value).endswith("settings"):
                found.append(f"{where}: settings.trusted — use trust.code_may_run")
        elif isinstance(node, ast.ImportFrom | ast.Import):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [alias.name for alias in node.names]
            if isinstance(node, ast.ImportFrom):
                names += [f"{node.module}.{alias.name}" for alias in node.names]
            reached = [name for name in names if name.startswith(USER_CODE_MODULES)]
            if reached:
                found.append(f"{where}: imports {reached[-1]}")
    return sorted(found, key=lambda problem: int(problem.split(":")[1]))


def test_only_trust_py_decides() -> None:
    modules = sorted(SERVER.rglob("*.py"))
    assert len(modules) > 50
    problems = [
        problem
        for path in modules
        if path not in ALLOWED
        for problem in _problems(path.read_text(encoding="utf-8"), str(path.relative_to(SERVER)))
    ]
    assert problems == []


def test_the_rule_sees_each_violation() -> None:
    text = (
        "from holodeck_lsp.runner.agent_code.grader_import import import_grader\n"
        "import subprocess\n"
        "options = LoadOptions(trusted=True)\n"
        "session = RunSession.open(request)\n"
        "if server.settings.trusted: pass\n"
        "asyncio.create_subprocess_exec('python')\n"
    )
    found = _problems(text, "probe.py")
    assert [line.split(":")[1] for line in found] == ["1", "2", "3", "3", "4", "5", "6"]
