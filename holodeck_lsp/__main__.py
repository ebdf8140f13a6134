"""`python -m holodeck_lsp` is the `holodeck-lsp` command."""

from holodeck_lsp.cli import main

raise SystemExit(main())
