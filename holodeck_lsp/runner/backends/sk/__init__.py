"""The parts of the Semantic Kernel backend (`semantic_kernel_backend.py` holds the backend and
its sessions). Each module imports Semantic Kernel and openai only inside its functions.

* `openai_client` — the provider's HTTP client and chat service, and its errors as ours
* `kernel_functions` — function tools as kernel functions that record each call
* `mcp_plugins` — MCP stdio servers as kernel plugins that record each call
* `messages` — a turn's user message in, its answer, tool calls and token usage out
"""
