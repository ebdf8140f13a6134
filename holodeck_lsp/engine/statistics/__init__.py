"""Statistics over pass / fail verdicts: Wilson intervals, pass@k and pass^k, paired
comparison of two runs. Pure and standard library only (docs/reports.md, "Uncertainty")."""
