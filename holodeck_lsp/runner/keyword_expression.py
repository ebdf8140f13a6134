"""`-k EXPR`: choose cases by name, as pytest's `-k` chooses tests.

`EXPR` is words joined by `and`, `or`, `not` and parentheses; a word matches a case whose
name contains it, ignoring case (`-k "revenue and not 2019"`). An unnamed case is matched by
its label, `test_cases[3]`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Matcher = Callable[[str], bool]

_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")


class KeywordError(ValueError):
    """`EXPR` is not a valid expression; the message says where."""


def compile_keyword(expression: str) -> Matcher:
    """A function telling whether a case name matches `expression`."""
    tokens = [match.group(1) for match in _TOKEN.finditer(expression)]
    if not tokens:
        raise KeywordError("-k needs an expression, e.g. -k revenue or -k 'a and not b'")
    parser = _Parser(tokens, expression)
    matcher = parser.either()
    if parser.position != len(tokens):
        raise KeywordError(f"-k {expression!r}: unexpected {tokens[parser.position]!r}")
    return matcher


class _Parser:
    def __init__(self, tokens: list[str], expression: str) -> None:
        self.tokens = tokens
        self.position = 0
        self.expression = expression

    def peek(self) -> str | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise KeywordError(f"-k {self.expression!r}: the expression ends too early")
        self.position += 1
        return token

    def either(self) -> Matcher:
        left = self.both()
        while self.peek() == "or":
            self.take()
            right = self.both()
            left = _or(left, right)
        return left

    def both(self) -> Matcher:
        left = self.negation()
        while self.peek() == "and":
            self.take()
            right = self.negation()
            left = _and(left, right)
        return left

    def negation(self) -> Matcher:
        if self.peek() == "not":
            self.take()
            inner = self.negation()
            return lambda name: not inner(name)
        return self.atom()

    def atom(self) -> Matcher:
        token = self.take()
        if token == "(":
            inner = self.either()
            if self.take() != ")":
                raise KeywordError(f"-k {self.expression!r}: a '(' is never closed")
            return inner
        if token in (")", "and", "or"):
            raise KeywordError(f"-k {self.expression!r}: expected a word, got {token!r}")
        word = token.lower()
        return lambda name: word in name.lower()


def _or(left: Matcher, right: Matcher) -> Matcher:
    return lambda name: left(name) or right(name)


def _and(left: Matcher, right: Matcher) -> Matcher:
    return lambda name: left(name) and right(name)
