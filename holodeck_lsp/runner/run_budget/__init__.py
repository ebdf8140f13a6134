"""A run's spending as it goes (turns, tokens, cost: `RunMeter`) and the budgets that stop it
from starting more cases (`--max-cost`, `--max-turns`: `BudgetStop`)."""
