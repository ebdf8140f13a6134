"""Each agent folder's own Python modules: one process runs (or the language server keeps)
several agents, and every agent folder has a `tools.py`, often a `graders.py` or a helper
module of a common name. Imported under their plain names (a grader is `graders:check`, a tool
file imports its neighbours as `import helpers`), the second agent would get the first's
module from `sys.modules`.

`agent_imports(folder)` is the import context of one agent folder: while it is open, the
folder is first on `sys.path`, the modules imported earlier from *other* agent folders are
taken out of `sys.modules`, and the modules this folder imported before are put back — so
`import graders` finds this folder's file, and its tools and graders share one copy of each
neighbour (the BFCL suite's tools and grader share `bfcl_state`). When it closes, the other
folders' modules are restored; the objects already imported keep their own modules through
their globals. One lock for every folder: imports change process-wide state.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

_lock = threading.RLock()
#: Per agent folder (resolved): the modules imported from files inside it, by name.
_namespaces: dict[Path, dict[str, ModuleType]] = {}


@contextmanager
def agent_imports(folder: Path) -> Iterator[None]:
    """Import inside this block as the agent in `folder` would, alone in the process."""
    folder = folder.resolve()
    with _lock:
        own = _namespaces.setdefault(folder, {})
        hidden = {
            name: module
            for name, module in list(sys.modules.items())
            if _owner(module) not in (None, folder)
        }
        for name in hidden:
            del sys.modules[name]
        sys.modules.update(own)
        entry = str(folder)
        sys.path.insert(0, entry)
        try:
            yield
        finally:
            sys.path.remove(entry)  # the first occurrence: the one put there above
            for name, module in list(sys.modules.items()):
                if _owner(module) == folder:
                    own[name] = module
            # Another folder's module of the same name wins back its place; this folder's
            # stay where no other folder has one (a grader's later `import x` finds it).
            sys.modules.update(hidden)


def _owner(module: ModuleType) -> Path | None:
    """The agent folder whose file `module` was imported from (the innermost known one)."""
    if not _namespaces:
        return None
    place = getattr(module, "__file__", None)
    if not isinstance(place, str):
        return None
    # A string prefix, not Path.resolve: this runs over all of sys.modules. The folder is on
    # sys.path resolved, so what is imported from it has a __file__ under that very string.
    owners = [folder for folder in _namespaces if place.startswith(f"{folder}{os.sep}")]
    return max(owners, key=lambda folder: len(folder.parts)) if owners else None
