"""The checker: agent.yaml text -> validated Agent + diagnostics at exact ranges.

YAML read as HoloDeck reads it, with positions; the loader, structure and case checks, lints,
quick fixes (`fixes/`), grader resolution (`graders/`: static, or a child process when trusted),
static Python analysis (`python_source/`), and the one way any file is read (`file_reading`).
Never runs user code in-process (docs/architecture.md, "The rooms").
"""
