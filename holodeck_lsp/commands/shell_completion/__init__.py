"""Shell completion for `holodeck-lsp`: `completion bash|zsh|fish` prints a script
(bash.py, zsh.py, fish.py), written from the commands' argparse parsers (`command_table.py`
walks them; the lookup functions bash and zsh share: `lookup_functions.py`); the
scripts ask hidden commands for the values only the files on disk know: `__case-names`
(case_names.py) after `--case` and `-k`, `__run-refs` (run_refs.py) where a stored run or tag
goes, `__models` (model_names.py) after `--model`. `hidden.py` dispatches them."""

#: The hidden commands the scripts call; not in --help. Here, not in command_table, so that
#: cli.py can dispatch them without importing dataclasses.
CASE_NAMES_COMMAND = "__case-names"
RUN_REFS_COMMAND = "__run-refs"
MODELS_COMMAND = "__models"
HIDDEN_COMMANDS = (CASE_NAMES_COMMAND, RUN_REFS_COMMAND, MODELS_COMMAND)
