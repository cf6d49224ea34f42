"""Reading a user's input file as text: one reader, so every loader names a wrong file kind the same way.

Users hand langbite files saved by spreadsheets and editors: UTF-16 from
Excel's "Unicode text", a workbook renamed ``.csv``, a named pipe given by
mistake. Decoding those as UTF-8 gives either a decoding error at a byte that
means nothing to the user, or worse, text with a NUL between every letter that
the CSV reader then reports as eighteen bad column names. Here the file kind
is recognised first and named in one line, with what to do instead.
"""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path


class TextProblem(Exception):
    """Why a file cannot be read as UTF-8 text; ``line``/``col`` are 0 when the problem has no place."""

    def __init__(self, message: str, line: int = 0, col: int = 0) -> None:
        super().__init__(message)
        self.message, self.line, self.col = message, line, col


_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
         (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))
_SIGNATURES = ((b"PK\x03\x04", "a ZIP archive (an Excel .xlsx workbook, an .ods or .docx document)"),
               (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old-style Office file (an Excel .xls workbook)"),
               (b"%PDF-", "a PDF document"),
               (b"\x1f\x8b", "a gzip-compressed file"),
               (b"SQLite format 3\x00", "an SQLite database"))


def read_bytes(path: Path, what: str = "file") -> bytes:
    """The file's bytes; TextProblem when it is not a regular file (a FIFO or device would block or never end)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise TextProblem("no such file") from None
    except OSError as exc:
        raise TextProblem(f"cannot be read ({exc.strerror})") from None
    if stat.S_ISDIR(mode):
        raise TextProblem(f"is a folder, not a {what}")
    if not stat.S_ISREG(mode):
        kind = "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
        raise TextProblem(f"is {kind}, not a regular file; give the {what} itself")
    try:
        return path.read_bytes()
    except PermissionError:
        raise TextProblem("cannot be read (permission denied)") from None
    except OSError as exc:
        raise TextProblem(f"cannot be read ({exc.strerror})") from None


def decode(data: bytes, what: str = "file") -> str:
    """UTF-8 text (a UTF-8 byte-order mark dropped), or TextProblem naming what the bytes are instead."""
    save_as = f"save the {what} as UTF-8 (in Excel: 'CSV UTF-8'; in an editor: encoding UTF-8)"
    for bom, name in _BOMS:
        if data.startswith(bom):
            raise TextProblem(f"is {name} text (it starts with a {name} byte-order mark), not UTF-8; {save_as}", 1, 1)
    for signature, kind in _SIGNATURES:
        if data.startswith(signature):
            raise TextProblem(f"is {kind}, not a text file; export the {what} as UTF-8 text", 1, 1)
    head = data[:4096]
    if len(head) >= 4 and head.count(0) * 3 >= len(head):
        evens, odds = head[0::2].count(0), head[1::2].count(0)
        if max(evens, odds) * 4 >= len(head) and min(evens, odds) * 8 < len(head):
            raise TextProblem(f"looks like UTF-16 text without a byte-order mark (a NUL byte beside every "
                             f"letter), not UTF-8; {save_as}", 1, 1)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise TextProblem(f"not UTF-8: byte 0x{data[exc.start]:02x} cannot be decoded; {save_as}", line,
                          col) from None


def read_text(path: Path, what: str = "file") -> str:
    """:func:`read_bytes` then :func:`decode`."""
    return decode(read_bytes(path, what), what)
