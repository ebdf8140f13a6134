"""Shell completion for `holodeck-lsp`: `completion bash|zsh|fish` prints a script
(`script.py`), written from one table of the commands (`command_table.py`); the scripts ask
the hidden `__case-names` command (`case_names.py`) for the case names after `--case`."""
