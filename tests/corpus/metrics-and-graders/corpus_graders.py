"""Graders of the metrics-and-graders corpus file."""

THRESHOLD = 0.5


def turn_program(ctx):
    return True
