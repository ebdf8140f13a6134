"""`holodeck-lsp import DATASET …`: a public benchmark as a HoloDeck test suite. main.py
chooses the dataset from its table; each dataset is one module here (see main.py)."""
