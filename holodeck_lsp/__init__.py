"""holodeck-lsp: language server, checker and runner for HoloDeck agent.yaml test suites."""

__version__ = "0.1.0"
