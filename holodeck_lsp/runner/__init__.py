"""Running test cases against real agent backends: the backend protocol, function tools,
the executor, cassettes (record / replay) and the `holodeck-lsp run` command.

Backend SDKs (semantic-kernel, claude-agent-sdk) are imported only by their backend module,
only when a run needs them.
"""
