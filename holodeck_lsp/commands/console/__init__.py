"""What a run prints on the terminal: per-case progress, the totals bar of a large run,
the matrix table, the closing lines, and `--watch`."""
