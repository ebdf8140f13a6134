"""Simulated users: the conversation a model playing the user steers (docs/simulated-users.md)."""
