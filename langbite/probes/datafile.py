"""Probe data files: one clear line for a missing, folder, empty or unreadable file, and CSV rows with lines.

Every loader of probe data (GEST, Inventories, declarative specs) goes
through :func:`read_text`, so a folder given as ``--data`` or an empty file is
an input error naming the path, never a traceback.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path

from langbite import textfile
from langbite.errors import InputErrors, suggest


def read_text(path: Path, what: str = "data file", hint: str = "") -> str:
    """The file's text (UTF-8, BOM dropped); InputErrors when it is missing, a folder, empty or not text."""
    tail = f"; {hint}" if hint else ""
    if path.is_dir():
        raise InputErrors.single(str(path), f"is a folder; give the {what} itself{tail}")
    if not path.is_file():
        raise InputErrors.single(str(path), f"no such {what}{tail}")
    try:
        text = textfile.read_text(path, what)
    except textfile.TextProblem as exc:
        raise InputErrors.single(str(path), exc.message, exc.line, exc.col) from None
    if not text.strip():
        raise InputErrors.single(str(path), f"the {what} is empty")
    return text


def read_csv(path: Path, required: Iterable[str] = (), what: str = "data file",
             hint: str = "") -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """Header and (physical line, row) pairs of a CSV file; the required columns must be in the header."""
    reader = csv.DictReader(io.StringIO(read_text(path, what, hint), newline=""))
    header = [h.strip() for h in reader.fieldnames or []]
    reader.fieldnames = header
    missing = [c for c in required if c not in header]
    if missing:
        found = ", ".join(repr(h) for h in header) or "nothing"
        hints = "".join(suggest(m, header) for m in missing)
        raise InputErrors.single(str(path), f"expected column(s) {', '.join(missing)}, found {found}{hints}", 1, 1)
    rows = []
    try:
        for row in reader:
            rows.append((reader.line_num, {k: (v or "") for k, v in row.items() if k is not None}))
    except csv.Error as exc:
        raise InputErrors.single(str(path), f"malformed CSV: {exc}", reader.line_num) from None
    if not rows:
        raise InputErrors.single(str(path), f"the {what} has a header but no rows", 1, 1)
    return header, rows
