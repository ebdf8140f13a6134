"""Code of the user's project that a run loads: function tools, MCP servers (and the
environment their child processes get), code graders imported and loaded."""
