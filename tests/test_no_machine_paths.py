"""No path of one particular machine in what the repository ships: the product, its docs, the
samples, the tests, the benchmarks and the editor extension name none of the folders of the
machine it was built on (its workspace, root's home) nor the workspace-only copy of a dataset
(the patterns are below). A newcomer's clone has none of them; a dataset is named by an option
or an environment variable, and docs/importing.md says where to get it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Built from parts, so this file does not match itself.
_MACHINE_PATH = re.compile("|".join(["/" + "work/", "/" + "root/", "shared" + "/data"]))


def _tracked_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode("utf-8")
    return [ROOT / name for name in listed.split("\0") if name]


def test_no_tracked_file_names_a_path_of_one_machine() -> None:
    found = []
    for path in _tracked_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary files (images, the cassettes' blobs), or deleted in the tree
        for number, line in enumerate(text.splitlines(), start=1):
            if _MACHINE_PATH.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert not found, "paths of one machine:\n" + "\n".join(found)
