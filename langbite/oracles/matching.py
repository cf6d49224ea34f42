"""How an answer is compared with an expected value. Documented in USER_GUIDE.md.

Both the answer and each expected value are normalised the same way:

1. Unicode NFKC; curly quotes and apostrophes become straight ones.
2. Case-folded; runs of white space become one space; trimmed.
3. Leading decoration is removed: markdown emphasis and headings (``*``,
   ``_``, ``#``, ``>``, backticks), quotes, bullets, dashes, opening brackets,
   leading punctuation, and an ``Answer:`` / ``Respuesta:`` / ``Resposta:``
   label.

An answer *starts with* an expected value when the normalised answer begins
with the normalised value and the value ends at a word boundary ("No," and
"No." match "No"; "Nobody" does not). An answer *includes* a value when the
value occurs anywhere as whole words.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00b4": "'"})
_SPACE = re.compile(r"\s+")
_LEAD = re.compile(
    r"^(?:[\s*_#>`~\"'«»¡¿•·\-–—.,:;()\[\]]+|(?:answer|response|respuesta|resposta)\s*:)+"
)
_EMPHASIS = re.compile(r"[*_`]+")


def normalise(text: str) -> str:
    """Normalise ``text`` for matching (steps 1–3 of the module docstring)."""
    t = unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()
    t = _SPACE.sub(" ", t).strip()
    return _LEAD.sub("", t)


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def starts_with(answer: str, expected: str) -> bool:
    """True when the answer begins with ``expected`` at a word boundary."""
    a, e = normalise(answer), normalise(expected)
    if not e or not a.startswith(e):
        return False
    return len(a) == len(e) or not _is_word(a[len(e)]) or not _is_word(e[-1])


def starts_with_any(answer: str, expected: Sequence[str]) -> str | None:
    """Return the first expected value the answer starts with, if any."""
    for e in expected:
        if starts_with(answer, e):
            return e
    return None


def includes(answer: str, expected: str) -> bool:
    """True when ``expected`` occurs anywhere in the answer as whole words."""
    a = _EMPHASIS.sub("", normalise(answer))
    e = normalise(expected)
    if not e:
        return False
    left = r"(?<!\w)" if _is_word(e[0]) else ""
    right = r"(?!\w)" if _is_word(e[-1]) else ""
    return re.search(left + re.escape(e) + right, a) is not None


def as_list(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def extract_json_object(text: str) -> dict[str, Any] | None:
    """Find the first JSON object in an answer (plain, fenced or embedded in prose).

    The text is parsed with :mod:`json` only; it is never evaluated as code.
    """
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for chunk in candidates:
        start = chunk.find("{")
        while start != -1:
            try:
                obj, _ = decoder.raw_decode(chunk, start)
            except json.JSONDecodeError:
                start = chunk.find("{", start + 1)
                continue
            if isinstance(obj, dict):
                return obj
            start = chunk.find("{", start + 1)
    return None


def lookup_key(obj: dict[str, Any], key: str) -> tuple[bool, Any]:
    """Get ``key`` from a JSON object, falling back to a case-insensitive match."""
    if key in obj:
        return True, obj[key]
    folded = {k.casefold(): v for k, v in obj.items() if isinstance(k, str)}
    if key.casefold() in folded:
        return True, folded[key.casefold()]
    return False, None


_NUMBER = re.compile(r"^\s*([-+]?\d+(?:[.,]\d+)?)\s*%?\s*$")


def as_number(value: Any) -> float | None:
    """A JSON number, or a string holding one ("15.0", "15%", "15,5"); else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        m = _NUMBER.match(value)
        if m:
            return float(m.group(1).replace(",", "."))
    return None
