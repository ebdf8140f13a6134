"""Every rendered output in one room: `check/` (check's text, JSON, SARIF and GitHub formats of
one diagnostics `Report`) and `run/` (a run's JSON, Markdown, JUnit and HTML reports, and the
turn-by-turn comparison of two runs `compare` shows). Reads results, grades nothing: grading is
`engine/`'s (docs/architecture.md, "The rooms").
"""
