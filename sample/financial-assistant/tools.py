"""Tools for the generated ConvFinQA HoloDeck agent (written by gen_convfinqa_agent.py)."""


def lookup(query: str) -> str:
    """Look up a value (table cell or figure) in the filing page under discussion.

    Placeholder: a real agent would search the filing's table and text here.
    """
    return ""


def subtract(a: float, b: float) -> float:
    """Return a minus b."""
    return a - b


def divide(a: float, b: float) -> float:
    """Return a divided by b."""
    return a / b


def add(a: float, b: float) -> float:
    """Return a plus b."""
    return a + b


def multiply(a: float, b: float) -> float:
    """Return a times b."""
    return a * b
