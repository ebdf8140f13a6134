"""`holodeck-lsp import DATASET …`: a public benchmark as a HoloDeck test suite. main.py
reads the datasets from holodeck_lsp/commands/import_/registry.py."""
