"""The hidden commands the completion scripts call (`__case-names`, `__run-refs`,
`__models`): each imports only its own module, since one runs on every Tab."""

from __future__ import annotations

from collections.abc import Sequence

from holodeck_lsp.commands.shell_completion import CASE_NAMES_COMMAND, RUN_REFS_COMMAND


def main(command: str, argv: Sequence[str]) -> int:
    if command == CASE_NAMES_COMMAND:
        from holodeck_lsp.commands.shell_completion.case_names import main as case_names_main

        return case_names_main(argv)
    if command == RUN_REFS_COMMAND:
        from holodeck_lsp.commands.shell_completion.run_refs import main as run_refs_main

        return run_refs_main(argv)
    from holodeck_lsp.commands.shell_completion.model_names import main as models_main

    return models_main(argv)
