from tests.runner.tracing.trace_support import receiver

__all__ = ["receiver"]
