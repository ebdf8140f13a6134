"""`holodeck-lsp import bfcl`: BFCL's multi-turn categories as multi-turn HoloDeck cases whose
tools are BFCL's own stateful classes, graded per turn as BFCL's checker grades."""
