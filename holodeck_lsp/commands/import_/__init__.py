"""`holodeck-lsp import DATASET …`: a public benchmark's files as a HoloDeck test suite."""
