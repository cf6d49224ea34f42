"""CSV output that treats model text as data.

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
would be run as a formula by spreadsheet programs (CSV injection); such text
cells get a leading apostrophe. Numbers are written as numbers.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

FORMULA_PREFIXES = ("=", "+", "-", "@")  # what spreadsheets evaluate; the workbook writer guards these
FORMULA_START = (*FORMULA_PREFIXES, "\t", "\r")  # in CSV, tab and CR can also start an injected formula


def guard(value: Any) -> Any:
    """Neutralise text that a spreadsheet would take for a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def write_csv(path: Path, columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> int:
    """Write rows (dicts keyed by ``columns``) to ``path``; return the row count."""
    n = 0
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([guard(row.get(c, "")) for c in columns])
            n += 1
    tmp.replace(path)
    return n


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))
