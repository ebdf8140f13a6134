"""Shell completion for `holodeck-lsp`: `completion bash|zsh|fish` prints a script
(`script.py`), written from one table of the commands (`command_table.py`); the scripts ask
the hidden `__case-names` command (`case_names.py`) for the case names after `--case`."""

#: The hidden command the scripts call for `--case` (case_names.py); not in --help. Here, not
#: in command_table, so that cli.py can dispatch it without importing dataclasses.
CASE_NAMES_COMMAND = "__case-names"
