"""Code graders of the valid ConvFinQA corpus agent."""


def turn_program_equivalence(ctx):
    return 1.0
