"""Which models a run covers: `--model PROVIDER:NAME` parsed, the agent switched to one,
the combinations with record / replay / repeat that cannot work."""
