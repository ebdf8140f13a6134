"""Pydantic models of agent.yaml — the contract every other layer builds on. No I/O here."""
