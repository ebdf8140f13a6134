"""Running the planned cases: the executor (one pool of case slots), one case's
conversation, the order cases start in, the progress events the callers receive."""
