"""ConvFinQA (Chen et al., EMNLP 2022; MIT licence) as HoloDeck multi-turn test cases: each
dialogue one case, each question one turn with the dataset's answer as ground truth, the
steps of its program as expected tool calls and the program for the code grader. `suite`
converts; `selection` says which dialogues qualify; `cases` maps one; `language` is the
program language, which the imported suite also runs with (copied beside it as convfinqa.py).
"""
