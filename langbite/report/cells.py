"""The one guard every written cell goes through (CSV, every workbook sheet, comparisons).

Text from any source (model answers, template fields, requirement, community
and concern names, file names) is data. Two steps, always in this order:

1. :func:`clean` removes the control characters that XML (and so Excel) rejects,
   and that a spreadsheet program would drop silently when it opens a CSV;
2. :func:`formula_like` then looks at what is left. A value whose first visible
   character is ``=``, ``+``, ``-`` or ``@`` (or a full-width form of one, which
   some spreadsheet locales fold), or that starts with a tab or carriage return,
   would be evaluated by a spreadsheet.

Checking after cleaning is the point: ``"\\x01=cmd"`` must not pass the check
as ``"\\x01..."`` and then be written as ``"=cmd"``.
"""

from __future__ import annotations

import re
from typing import Any

# The characters openpyxl refuses (its ILLEGAL_CHARACTERS_RE): C0 controls but tab, newline and CR.
_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
FORMULA_PREFIXES = ("=", "+", "-", "@", "\uff1d", "\uff0b", "\uff0d", "\uff20")
# Characters a spreadsheet may skip before it decides whether a cell is a formula.
_SKIPPED = " \t\r\n\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u200b\u200c\u200d" \
           "\u2028\u2029\u202f\u205f\u2060\u3000\ufeff"


def clean(text: str) -> str:
    """``text`` without the control characters a workbook cannot hold."""
    return _ILLEGAL.sub("", text)


_FIRST = frozenset(_SKIPPED) | frozenset(FORMULA_PREFIXES)


def formula_like(text: str) -> bool:
    """Whether a spreadsheet could evaluate ``text`` (already cleaned) as a formula."""
    if text[:1] not in _FIRST:  # the common case, decided by the first character alone
        return False
    return text.startswith(("\t", "\r")) or text.lstrip(_SKIPPED).startswith(FORMULA_PREFIXES)


def guard(value: Any) -> Any:
    """A CSV cell: cleaned text, with a leading apostrophe when it could run as a formula; other values as they are."""
    if not isinstance(value, str):
        return value
    text = clean(value)
    return "'" + text if formula_like(text) else text
