"""Grading: matchers, evaluators, code graders, per-turn results and roll-up, reports.

Pure functions over data. Nothing here imports a backend SDK or the language server; heavy
optional libraries (NLP metrics) are imported only when a metric needs them.
"""
