"""The subcommands of `holodeck-lsp` (check, serve, schema); `run` is `commands/run/main.py`.

`holodeck_lsp/cli.py` only chooses the command; each module here parses its own options.
"""
