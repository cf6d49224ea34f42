"""CSV output that treats model text as data.

Every cell goes through :func:`langbite.report.cells.guard`: control characters
are removed, then text that a spreadsheet would run as a formula (CSV
injection) gets a leading apostrophe. Numbers are written as numbers.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from langbite.report.cells import guard

__all__ = ["guard", "write_csv", "read_csv"]

def write_csv(path: Path, columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> int:
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
