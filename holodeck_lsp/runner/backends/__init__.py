"""The agent backends: one per SDK, chosen by the providers table (providers.py) and created
by create.py. Nothing is imported here, so naming a submodule costs only that submodule.

- base.py: the AgentBackend protocol every backend implements, and its errors.
- semantic_kernel_backend.py + sk/: openai, azure_openai, ollama.
- claude_backend.py + claude/: anthropic, through the Claude Agent SDK.
- preflight.py, connection_watch.py: telling a provider that is down from wrong answers.
- overrides.py, instructions.py, json_values.py: what every backend shares.
"""
