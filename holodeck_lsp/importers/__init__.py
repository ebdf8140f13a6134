"""Converters from public benchmarks to HoloDeck test suites (one sub-package per dataset)."""
