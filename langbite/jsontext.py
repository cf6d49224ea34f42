"""JSON input: strict loading, and the line and column of every value.

Strict, because a user's file must mean one thing: a key given twice, NaN,
``Infinity`` or nesting deeper than :data:`MAX_DEPTH` are input errors with a
position, not a silent last-one-wins or a ``RecursionError``.

Positions, because jsonschema reports *where in the data* a violation is
(``$.requirements[1]``) and users need *where in the file*: :func:`locate`
walks the text once and records each value's offset.
"""

from __future__ import annotations

import json
import re
from typing import Any

from langbite.errors import invisible_characters

Path = tuple[str | int, ...]
MAX_DEPTH = 64
_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"')
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_LITERALS = ("true", "false", "null")


class JsonProblem(ValueError):
    """A JSON text that is not acceptable input, with the position of the problem."""

    def __init__(self, message: str, line: int = 0, col: int = 0) -> None:
        super().__init__(message)
        self.message, self.line, self.col = message, line, col


class _Walker:
    def __init__(self, text: str) -> None:
        self.text = text
        self.positions: dict[Path, int] = {}
        self.duplicates: list[tuple[Path, int]] = []
        self.too_deep: int | None = None

    def ws(self, i: int) -> int:
        return _WS.match(self.text, i).end()  # type: ignore[union-attr]

    def string(self, i: int) -> tuple[str, int]:
        m = _STRING.match(self.text, i)
        if not m:
            raise ValueError(i)
        return json.loads(m.group(0)), m.end()

    def value(self, i: int, path: Path) -> int:
        i = self.ws(i)
        self.positions[path] = i
        ch = self.text[i : i + 1]
        if ch in "{[" and len(path) >= MAX_DEPTH:
            self.too_deep = i
            raise ValueError(i)
        if ch == "{":
            return self.obj(i + 1, path)
        if ch == "[":
            return self.arr(i + 1, path)
        if ch == '"':
            return self.string(i)[1]
        for lit in _LITERALS:
            if self.text.startswith(lit, i):
                return i + len(lit)
        m = _NUMBER.match(self.text, i)
        if not m:
            raise ValueError(i)
        return m.end()

    def obj(self, i: int, path: Path) -> int:
        i = self.ws(i)
        if self.text[i : i + 1] == "}":
            return i + 1
        seen: set[str] = set()
        while True:
            i = self.ws(i)
            key_at = i
            key, i = self.string(i)
            if key in seen:
                self.duplicates.append((path + (key,), key_at))
            seen.add(key)
            i = self.ws(i) + 1  # ':'
            i = self.value(i, path + (key,))
            self.positions.setdefault(path + (key, "<key>"), key_at)
            i = self.ws(i)
            if self.text[i] == "}":
                return i + 1
            i += 1  # ','

    def arr(self, i: int, path: Path) -> int:
        i = self.ws(i)
        if self.text[i : i + 1] == "]":
            return i + 1
        n = 0
        while True:
            i = self.value(i, path + (n,))
            n += 1
            i = self.ws(i)
            if self.text[i] == "]":
                return i + 1
            i += 1


def line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def json_path(path: Path) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def _reject_constant(name: str) -> Any:
    raise JsonProblem(f"{name} is not valid JSON: write a number")


def _strings(value: Any, path: Path) -> Any:
    """Yield (path, text) of every string, keys included."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield path + (k, "<key>"), k
            yield from _strings(v, path + (k,))
    elif isinstance(value, list):
        for n, v in enumerate(value):
            yield from _strings(v, path + (n,))


def load_json(text: str) -> Any:
    """Parse ``text`` strictly; raise :class:`JsonProblem` with line and column.

    Rejected besides syntax errors: duplicate keys, NaN and Infinity, nesting
    deeper than :data:`MAX_DEPTH`, NUL and invisible characters in strings.
    """
    walker = _Walker(text)
    failed_at = 0
    try:
        end = walker.ws(walker.value(0, ()))
    except ValueError as exc:
        end, failed_at = -1, exc.args[0] if exc.args and isinstance(exc.args[0], int) else 0
    except IndexError:
        end = -1
    if walker.too_deep is not None:
        raise JsonProblem(f"nested deeper than {MAX_DEPTH} levels", *line_col(text, walker.too_deep))
    try:
        document = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise JsonProblem(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except JsonProblem as exc:  # NaN or Infinity: the walker stopped on it
        raise JsonProblem(exc.message, *line_col(text, failed_at)) from None
    except RecursionError:
        raise JsonProblem(f"nested deeper than {MAX_DEPTH} levels") from None
    if end != len(text):  # the walker and json disagree only on exotic input; json's verdict stands
        return document
    if walker.duplicates:
        path, at = walker.duplicates[0]
        raise JsonProblem(f"{json_path(path)}: key '{path[-1]}' appears twice in one object", *line_col(text, at))
    for path, value in _strings(document, ()):
        problem = invisible_characters(value)
        if problem:
            where = path[:-1] if path and path[-1] == "<key>" else path
            raise JsonProblem(f"{json_path(where)}: {problem}", *locate(text, path[:-1], key=True)
                              if path and path[-1] == "<key>" else locate(text, path))
    return document


class Locator:
    """Positions of every value and key of one JSON text, found in one walk and looked up many times.

    A loader that reports or records many positions (every requirement's fields, every
    community) asks this instead of walking the text once per question.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        walker = _Walker(text)
        try:
            walker.value(0, ())
            self.positions: dict[Any, int] = walker.positions
        except (ValueError, IndexError):
            self.positions = {}

    def __call__(self, path: Path, key: bool = False) -> tuple[int, int]:
        p = tuple(path)
        if key and p + ("<key>",) in self.positions:
            return line_col(self.text, self.positions[p + ("<key>",)])
        while p and p not in self.positions:
            p = p[:-1]
        pos = self.positions.get(p)
        return line_col(self.text, pos) if pos is not None else (0, 0)


def locate(text: str, path: Path, key: bool = False) -> tuple[int, int]:
    """Line and column of the value at ``path`` (of its key when ``key``); (0, 0) if unknown.

    The text must be valid JSON. For a missing key, the position of the
    closest existing parent is returned.
    """
    return Locator(text)(path, key)
