"""Line and column of every value in a JSON text, keyed by its path.

jsonschema reports *where in the data* a violation is (``$.requirements[1]``);
users need *where in the file*. This walks the text once with the standard
library's own string and number scanners and records each value's position.
"""

from __future__ import annotations

import json.decoder
import re
from collections.abc import Callable

Path = tuple[str | int, ...]
# the standard library's JSON string scanner (not in the type stubs, but part of json.decoder)
_scanstring: Callable[[str, int], tuple[str, int]] = getattr(json.decoder, "scanstring")  # noqa: B009 (absent from the stubs)
_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_LITERALS = ("true", "false", "null")


class _Walker:
    def __init__(self, text: str) -> None:
        self.text = text
        self.positions: dict[Path, int] = {}

    def ws(self, i: int) -> int:
        return _WS.match(self.text, i).end()  # type: ignore[union-attr]

    def value(self, i: int, path: Path) -> int:
        i = self.ws(i)
        self.positions[path] = i
        ch = self.text[i : i + 1]
        if ch == "{":
            return self.obj(i + 1, path)
        if ch == "[":
            return self.arr(i + 1, path)
        if ch == '"':
            return _scanstring(self.text, i + 1)[1]
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
        while True:
            i = self.ws(i)
            key_at = i
            key, i = _scanstring(self.text, i + 1)
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


def locate(text: str, path: Path, key: bool = False) -> tuple[int, int]:
    """Line and column of the value at ``path`` (of its key when ``key``); (0, 0) if unknown.

    The text must be valid JSON. For a missing key, the position of the
    closest existing parent is returned.
    """
    walker = _Walker(text)
    try:
        walker.value(0, ())
    except (ValueError, IndexError):
        return 0, 0
    p = tuple(path)
    if key and p + ("<key>",) in walker.positions:
        return line_col(text, walker.positions[p + ("<key>",)])
    while p and p not in walker.positions:
        p = p[:-1]
    pos = walker.positions.get(p)
    return line_col(text, pos) if pos is not None else (0, 0)
