"""holodeck-lsp's own settings file, `holodeck-lsp.yaml` (beside the agent file or in
~/.holodeck/): the `models:` a run covers, rate limits, retry budget, tool-round limit and
prices. Read with the checker's file reading and YAML; applied to a run by the run core
(runner/project_limits.py). docs/running.md, "Long runs", says what each key does.
"""
