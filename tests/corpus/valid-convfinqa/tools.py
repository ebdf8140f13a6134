"""Tools of the valid ConvFinQA corpus agent."""


def lookup(query: str) -> str:
    return ""


def subtract(a: float, b: float) -> float:
    return a - b


def divide(a: float, b: float) -> float:
    return a / b
