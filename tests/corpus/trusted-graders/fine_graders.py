LIMIT = 3


def grade(ctx):
    return 1.0
