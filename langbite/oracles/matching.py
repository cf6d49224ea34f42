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
from functools import lru_cache
from collections.abc import Sequence
from typing import Any, TypeVar

T = TypeVar("T")

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
    return _whole(e).search(a) is not None


@lru_cache(maxsize=4096)
def _whole(e: str) -> re.Pattern[str]:
    left = r"(?<!\w)" if _is_word(e[0]) else ""
    right = r"(?!\w)" if _is_word(e[-1]) else ""
    return re.compile(left + re.escape(e) + right)


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def extract_json_object(text: str) -> dict[str, Any] | None:
    """Find the first JSON object in an answer (plain, fenced or embedded in prose).

    The text is parsed with :mod:`json` only; it is never evaluated as code.
    """
    for chunk in [m.group(1) for m in _FENCE.finditer(text)] + [text]:
        obj = first_json(chunk, dict)
        if obj is not None:
            return obj
    return None


def first_json(text: str, kind: type[T]) -> T | None:
    """The first JSON value of type ``kind`` (dict or list) found in ``text``, parsed as data only."""
    opening = "{" if kind is dict else "["
    decoder = json.JSONDecoder()
    start = text.find(opening)
    while start != -1:
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, kind):
            return value
        start = text.find(opening, start + 1)
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


_RANGE = re.compile(r"\b\d+(?:[.,]\d+)?\s*(?:-|–|to|a|al|fins a|hasta|and|y|i)\s*\d+(?:[.,]\d+)?\b", re.I)
_AGE = re.compile(r"\b(?:aged\s+\d+|\d+\s*(?:-\s*|\s+)(?:years?[-\s]old|year\b|años|anys)|de\s+\d+\s+(?:años|anys))",
                  re.I)
_PROSE_NUMBER = re.compile(r"(?<![\w.,])([-+]?\d+(?:[.,]\d+)?)\s*(%|percent|por ciento|per cent)?", re.I)


def read_value(answer: str, key: str) -> tuple[Any, str]:
    """The value an answer gives for ``key``: from its JSON object, or from prose that states a number.

    Returns (value, how): how is "json", "prose" or "" (nothing read). In prose, the
    number nearest after the key's name wins; without the name, a lone number (or a
    lone percentage) is read.
    """
    obj = extract_json_object(answer)
    if obj is not None:
        found, value = lookup_key(obj, key)
        if found:
            return value, "json"
    text = _RANGE.sub(" ", unicodedata.normalize("NFKC", answer))  # "0 to 100" states a scale, not a value
    text = _AGE.sub(" ", text)  # "45-year-old people", "de 45 años": the community, not the answer
    numbers = [m for m in _PROSE_NUMBER.finditer(text)]
    if not numbers:
        return None, ""
    name = re.compile(r"\b" + re.escape(key.replace("_", " ")).replace(r"\ ", r"[\s_]") + r"\b", re.I)
    named = name.search(text)
    if named:
        after = [m for m in numbers if m.start() >= named.end() and m.start() - named.end() <= 80]
        if after:
            return float(after[0].group(1).replace(",", ".")), "prose"
    percents = [m for m in numbers if m.group(2)]
    if len(percents) == 1:
        return float(percents[0].group(1).replace(",", ".")), "prose"
    if len(numbers) == 1:
        return float(numbers[0].group(1).replace(",", ".")), "prose"
    return None, ""


def extract_text_outside_json(text: str) -> str:
    """An answer's prose around its JSON object (the reason a model gives for "-1")."""
    obj_at = text.find("{")
    end = text.rfind("}")
    return (text[:obj_at] + " " + text[end + 1:]).strip() if obj_at != -1 and end > obj_at else text
