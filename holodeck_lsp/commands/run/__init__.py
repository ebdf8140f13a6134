"""`holodeck-lsp run`: its options, the run of one agent file, the outputs, the baseline
gate, Ctrl-C."""
