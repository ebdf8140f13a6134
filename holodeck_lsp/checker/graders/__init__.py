"""Resolving `type: code` metric graders (`grader: "module.path:callable"`).

HoloDeck resolves a grader when it loads the config: with the agent's folder first on
`sys.path` it does `importlib.import_module(module)`, `getattr(module, name)` and checks
`callable(...)`. We report the same faults two ways, with the same messages:

* `static.resolve_graders_static` (the default) never runs user code, because the editor opens
  untrusted repositories. It finds the module file like the import system would and reads its
  top-level definitions with `ast`. Whatever it cannot decide (compiled modules, star imports,
  module `__getattr__`, files with syntax errors) counts as resolved: no false alarms.
* `trusted.resolve_graders_trusted` is for workspaces the user has declared trusted: it really
  imports the modules, but in one child process with a timeout (`child_process.py` runs it,
  `_probe.py` is the child's source, `probe_report.py` reads what it left), so a hanging,
  crashing or exiting module cannot take the language server with it. This process never
  imports user modules.

`problems.py` holds what both share: `GraderProblem`, `parse_grader_path` and the message
builders. The package re-exports nothing: import from the module that owns the name.
"""
