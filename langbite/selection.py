"""Choosing what runs: ``-k EXPR``, ``--ids`` and ``--limit``, as pytest users expect.

``-k`` takes words joined with ``and``, ``or``, ``not`` and parentheses. A
word matches a template when it occurs (case-insensitively) in one of the
template's keywords: its id, concern, domain, language, input type, reflection
type, or the name of the requirement that selects it. ``-k "sexism and not
hiring"`` keeps the sexism templates outside the hiring domain. The expression
is parsed here (a small recursive-descent parser); nothing is ever evaluated
as Python.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from langbite.errors import InputErrors

_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")
Matcher = Callable[[frozenset[str]], bool]


class _Parser:
    def __init__(self, expression: str) -> None:
        self.expression = expression
        self.tokens = _TOKEN.findall(expression)
        self.i = 0

    def fail(self, message: str) -> InputErrors:
        return InputErrors.single("-k", f"{message} in {self.expression!r} (words joined with and, or, not, "
                                        "and parentheses, as in pytest)")

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise self.fail("the expression ends too early")
        self.i += 1
        return token

    def parse(self) -> Matcher:
        if not self.tokens:
            raise self.fail("the expression is empty")
        matcher = self.alternatives()
        if self.peek() is not None:
            raise self.fail(f"unexpected {self.peek()!r}")
        return matcher

    def alternatives(self) -> Matcher:
        parts = [self.conjunction()]
        while self.peek() == "or":
            self.take()
            parts.append(self.conjunction())
        return parts[0] if len(parts) == 1 else (lambda kw: any(p(kw) for p in parts))

    def conjunction(self) -> Matcher:
        parts = [self.negation()]
        while self.peek() == "and":
            self.take()
            parts.append(self.negation())
        return parts[0] if len(parts) == 1 else (lambda kw: all(p(kw) for p in parts))

    def negation(self) -> Matcher:
        if self.peek() == "not":
            self.take()
            inner = self.negation()
            return lambda kw: not inner(kw)
        return self.atom()

    def atom(self) -> Matcher:
        token = self.take()
        if token == "(":
            inner = self.alternatives()
            if self.take() != ")":
                raise self.fail("a parenthesis is not closed")
            return inner
        if token in (")", "and", "or"):
            raise self.fail(f"unexpected {token!r}")
        word = token.casefold()
        return lambda kw: any(word in k for k in kw)


def parse_keyword_expression(expression: str) -> Matcher:
    """A matcher over a template's keywords, or InputErrors naming what is wrong with the expression."""
    return _Parser(expression).parse()


@dataclass(frozen=True)
class Selection:
    """What the command line narrows a run to (the requirements model's own choices come first)."""

    keyword: str | None = None  # -k EXPR
    ids: tuple[str, ...] = ()  # --ids: only these template ids
    limit: int | None = None  # --limit N: at most N templates per requirement and language

    def matcher(self) -> Matcher | None:
        return parse_keyword_expression(self.keyword) if self.keyword else None


def keywords(*values: Iterable[str] | str) -> frozenset[str]:
    out: set[str] = set()
    for value in values:
        for v in [value] if isinstance(value, str) else value:
            if v:
                out.add(str(v).casefold())
    return frozenset(out)
