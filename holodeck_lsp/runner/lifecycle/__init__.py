"""A run's lifecycle, the same for `holodeck-lsp run` and the editor's run commands
(docs/architecture.md, "One loader, one run path"): prepare (resume or last-failed, plan the
cases once, models and repeats, limits and prices, where the answers come from), start (open
the journal, open the session), finish (close the journal, decide whether the run is
unfinished, store it, remember which cases failed). Front ends turn flags or LSP arguments
into a `LifecycleRequest` and present what comes back; they never open a journal or store a
run themselves."""
