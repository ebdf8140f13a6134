"""Running the completion scripts in real shells, for tests/cli/test_shell_completion*.py:
the real console script on PATH (this checkout's code first), so a Tab starts the real hidden
commands."""

from __future__ import annotations

import atexit
import functools
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def shell_environment(tmp_path: Path) -> dict[str, str]:
    """PATH finds this interpreter's holodeck-lsp; PYTHONPATH keeps this checkout's code."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    env["HOME"] = str(tmp_path)
    return env


def run_shell(argv: list[str], cwd: Path) -> str:
    done = subprocess.run(
        argv, cwd=cwd, env=shell_environment(cwd), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@functools.cache
def completion_script(shell: str) -> Path:
    """What the real `holodeck-lsp completion SHELL` prints, written to a file once per test
    process, for the shells to source: writing the script builds every command's parser, about
    1 CPU-s on a loaded 2-core machine, which each of the files' 60-odd completions would pay
    again (docs/cli.md, "How the scripts are made", writes it to a file once for the same
    reason). The documented `eval "$(holodeck-lsp completion SHELL)"` line itself is run by
    one completion per shell (`INSTALL_LINES`)."""
    folder = Path(tempfile.mkdtemp(prefix="holodeck-completion-"))
    atexit.register(shutil.rmtree, folder, True)
    script = folder / f"holodeck-lsp.{shell}"
    script.write_text(run_shell(["holodeck-lsp", "completion", shell], folder), encoding="utf-8")
    return script


#: How a user installs each script (docs/cli.md, "`completion bash|zsh|fish`"): the line a
#: test's first completion per shell runs instead of sourcing `completion_script`'s file.
INSTALL_LINES = {
    "bash": 'eval "$(holodeck-lsp completion bash)"',
    "zsh": 'eval "$(holodeck-lsp completion zsh)"',
    "fish": "holodeck-lsp completion fish | source",
}


def load_script(shell: str, as_installed: bool = False) -> str:
    """The shell code that loads the completion script: the cached file, or (`as_installed`)
    the install line a user puts in the shell's start-up file."""
    if as_installed:
        return INSTALL_LINES[shell]
    return f"source {shell_quote(str(completion_script(shell)))}"


def bash_complete(
    cwd: Path,
    words: list[str],
    cword: int | None = None,
    line: str | None = None,
    as_installed: bool = False,
) -> list[str]:
    """COMPREPLY for the command line `words` (the last word being completed), one per line;
    COMP_LINE is `line`, else the words joined by blanks (the cursor at its end). The script
    comes from `load_script`."""
    quoted = " ".join(shell_quote(word) for word in words)
    typed = " ".join(words) if line is None else line
    program = (
        f"{load_script('bash', as_installed)}\n"
        f"COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1 if cword is None else cword}\n"
        f"COMP_LINE={shell_quote(typed)}; COMP_POINT=${{#COMP_LINE}}\n"
        "_holodeck_lsp\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    return [line for line in run_shell(["bash", "-c", program], cwd).splitlines() if line]


def shell_quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def bash_words(cwd: Path, replies: list[str]) -> list[str]:
    """What bash reads each reply as, once inserted on a command line."""
    program = "".join(f"printf '%s\\n' {reply}\n" for reply in replies)
    return run_shell(["bash", "-c", program], cwd).splitlines()


def tab_in_terminal(cwd: Path, typed: str, inserted: str) -> list[str]:
    """Type `typed` and Tab into an interactive bash on a pseudo-terminal (readline inserts
    the reply), then run the line as `printf '<%s>\\n' LINE`: the words bash reads."""
    load = load_script("bash").encode()  # before the fork: the child only execs bash
    pid, fd = pty.fork()
    if pid == 0:  # the child: an interactive bash with this checkout's holodeck-lsp
        os.chdir(cwd)
        os.execvpe("bash", ["bash", "--norc", "--noprofile", "-i"], shell_environment(cwd))
    try:

        def read_until(marker: bytes, seconds: float = 20.0) -> bytes:
            seen = b""
            deadline = time.monotonic() + seconds
            while marker not in seen and time.monotonic() < deadline:
                ready, _, _ = select.select([fd], [], [], 0.1)
                if ready:
                    seen += os.read(fd, 65536)
            return seen

        os.write(fd, b"PS1='READY$ '; " + load + b'; echo LOAD""ED\n')
        read_until(b"LOADED\r\n")
        os.write(fd, typed.encode() + b"\t")
        # The Tab starts holodeck-lsp __case-names; wait for readline to echo the insertion.
        read_until(inserted.encode())
        # Ctrl-A, a printf in front, Ctrl-E, Enter. (DO""NE: the terminal echoes the line,
        # and only the output has DONE.)
        os.write(fd, b"\x01printf '<%s>\\n' \x05; echo DO\"\"NE\n")
        out = read_until(b"DONE\r\n").decode("utf-8", "replace")
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    return [line[1:-1] for line in out.splitlines() if line.startswith("<") and line.endswith(">")]
