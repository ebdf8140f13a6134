"""`holodeck-lsp import tau2`: τ²-bench's domains as simulated-user suites
(docs/importing-tau2.md)."""
