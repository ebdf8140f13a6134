"""The project builds a wheel and an sdist (the wheel from the sdist, in an isolated build
environment, as a PEP 517 frontend does); the wheel installs into a clean virtual environment
(dependencies from PyPI) and passes a smoke test there, the sdist installs too.

With uv (which the README's test command installs) as the frontend and installer: about 5 s
with its cache warm, against about 70 s for `python -m build` and pip, which are used when
uv is not there. Slow: it builds and installs for real."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

AGENT = """\
name: demo
model: {provider: openai, name: gpt-4o-mini}
instructions: {inline: "You are helpful."}
test_cases:
  - {name: t1, input: "What is 2+2?", ground_truth: 4}
"""


def call(*argv: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run(
        [str(arg) for arg in argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
        timeout=900,
    )


#: uv beside this interpreter (the README's install puts it there), else on PATH.
UV = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")


def build(dist: Path) -> subprocess.CompletedProcess[str]:
    """The sdist, then the wheel from it, each in an isolated build environment."""
    if UV is not None:
        return call(UV, "build", "--quiet", "--python", sys.executable, "--out-dir", dist, ROOT)
    return call(sys.executable, "-m", "build", "--outdir", dist, ROOT)


def new_environment(where: Path) -> Path:
    """A clean virtual environment; its python."""
    if UV is not None:
        made = call(UV, "venv", "--quiet", "--python", sys.executable, where)
        assert made.returncode == 0, made.stderr[-3000:]
    else:
        venv.create(where, with_pip=True)
    return where / "bin" / "python"


def install(python: Path, *argv: str | Path) -> subprocess.CompletedProcess[str]:
    if UV is not None:
        return call(UV, "pip", "install", "--quiet", "--python", python, *argv)
    return call(python, "-m", "pip", "install", "-q", *argv)


@pytest.mark.slow
def test_wheel_and_sdist_build_install_and_run(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    built = build(dist)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (wheel,) = dist.glob("holodeck_lsp-*.whl")
    (sdist,) = dist.glob("holodeck_lsp-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    top = names[0].split("/")[0]
    for needed in ("pyproject.toml", "README.md", "holodeck_lsp/cli.py"):
        assert f"{top}/{needed}" in names, needed

    clean = tmp_path / "clean"
    python = new_environment(clean)
    installed = install(python, wheel)
    assert installed.returncode == 0, installed.stderr[-3000:]
    script = clean / "bin" / "holodeck-lsp"
    where = call(python, "-c", "import holodeck_lsp; print(holodeck_lsp.__file__)", cwd=tmp_path)
    assert where.stdout.startswith(str(clean)), where.stdout  # the wheel, not this checkout

    project = tmp_path / "project"
    project.mkdir()
    (project / "agent.yaml").write_text(AGENT, encoding="utf-8")
    assert call(script, "--version").stdout.strip() == "0.1.0"
    check = call(script, "check", "agent.yaml", "--format", "json", cwd=project)
    assert check.returncode == 2 and '"code": "HD102"' in check.stdout
    assert call(script, "schema").stdout.startswith("{")
    assert "commands:" in call(script, "--help").stdout

    from_sdist = tmp_path / "from-sdist"
    sdist_python = new_environment(from_sdist)
    installed = install(sdist_python, "--no-deps", sdist)
    assert installed.returncode == 0, installed.stderr[-3000:]
    # --version needs only the standard library: the sdist's package and script are whole.
    assert call(from_sdist / "bin" / "holodeck-lsp", "--version").stdout.strip() == "0.1.0"
