"""Rendering a `TestReport`: `json_report` (the models themselves), `markdown` (for people,
failing cases first) and `junit` (for CI). Each module has `render(report) -> str`.

Numbering follows the JSON report: test cases and turns are 0-based (`#0` is
`test_cases[0]`, `turn 0` is `turn_index` 0, as in the roll-up's `[turn N]` errors).
"""
