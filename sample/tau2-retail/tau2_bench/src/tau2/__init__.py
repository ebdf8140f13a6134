"""tau2-bench's code, copied (see NOTICE). This file replaces tau2-bench's own tau2/__init__.py,
which imports the whole framework (runner, agents, voice); nothing else is changed."""
