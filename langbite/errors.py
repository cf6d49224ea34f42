"""Errors for bad input, rendered GCC-style as ``path:line:col: message``.

Loaders collect every problem they find in one pass and raise a single
:class:`InputErrors`, so a user fixes a whole file at once instead of one
error per run. The CLI turns :class:`InputErrors` into exit code 2 and never
shows a traceback for them; any other exception is a bug and keeps its
traceback.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True, order=True)
class InputError:
    """One problem in one input file (or in a command-line argument)."""

    path: str
    line: int = 0
    col: int = 0
    message: str = ""

    def __str__(self) -> str:
        where = self.path
        if self.line:
            where += f":{self.line}"
            if self.col:
                where += f":{self.col}"
        return f"{where}: {self.message}"


class InputErrors(Exception):
    """A batch of :class:`InputError`, sorted by file and position."""

    def __init__(self, errors: Iterable[InputError]) -> None:
        self.errors = sorted(set(errors))
        super().__init__("\n".join(str(e) for e in self.errors))

    @classmethod
    def single(cls, path: str, message: str, line: int = 0, col: int = 0) -> InputErrors:
        return cls([InputError(path, line, col, message)])


def every(items: Iterable[T], make: Callable[[T], R]) -> list[R]:
    """``make(item)`` for every item, all items' input errors raised together (one run reports them all)."""
    out: list[R] = []
    errors: list[InputError] = []
    for item in items:
        try:
            out.append(make(item))
        except InputErrors as exc:
            errors.extend(exc.errors)
    if errors:
        raise InputErrors(errors)
    return out


class ErrorCollector:
    """Accumulates errors while a loader keeps going; raises once at the end."""

    def __init__(self) -> None:
        self.errors: list[InputError] = []

    def add(self, path: str, line: int, col: int, message: str) -> None:
        self.errors.append(InputError(path, line, col, message))

    def extend(self, errors: Iterable[InputError]) -> None:
        self.errors.extend(errors)

    def raise_if_any(self) -> None:
        if self.errors:
            raise InputErrors(self.errors)

    def __bool__(self) -> bool:
        return bool(self.errors)


def suggest(name: str, known: Iterable[str]) -> str:
    """Return a "; did you mean 'x'?" suffix, or an empty string."""
    known = list(known)
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if not close:
        lowered = {k.lower(): k for k in known}
        close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
        close = [lowered[c] for c in close]
    if not close:
        return ""
    odd = [c for c in dict.fromkeys(name) if ord(c) > 127 and c not in close[0]]
    if odd:  # a look-alike letter (a Greek Epsilon for an E) prints the same as the suggestion: name it
        named = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in odd)
        return f"; did you mean '{close[0]}'? ('{name}' has {named}, not in '{close[0]}')"
    return f"; did you mean '{close[0]}'?"


_INVISIBLE = {
    "\x00": "a NUL byte", "\u200b": "a zero-width space", "\u200c": "a zero-width non-joiner",
    "\u200d": "a zero-width joiner", "\u2060": "a word joiner", "\ufeff": "a byte-order mark",
    "\u00ad": "a soft hyphen", "\u202e": "a right-to-left override", "\u202d": "a left-to-right override",
}


_INVISIBLE_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f" + "".join(_INVISIBLE) + "]")


def invisible_characters(value: str) -> str | None:
    """Why a text from an input file is unacceptable (NUL, zero-width or direction controls), or None.

    Such characters make two values that look identical differ (a community, a
    markup, a key), or hide text from a reviewer; they are never meant.
    """
    found = _INVISIBLE_RE.search(value)
    if found is None:
        return None
    ch = found.group()
    name = _INVISIBLE.get(ch, f"the control character U+{ord(ch):04X}")
    return f"contains {name} at character {found.start() + 1}; remove it"
