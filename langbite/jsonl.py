"""Append-only JSON-lines files that survive a kill: the run journal and the judge's memo."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


class JsonLines:
    """An append-only JSON-lines file: one ``write(2)`` per record, no user-space buffer to lose.

    A line cut short by a kill is removed before the first append, so the next
    record starts on a fresh line.
    """

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._repair(path)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self.written = 0

    @staticmethod
    def _repair(path: Path) -> None:
        """Cut a trailing partial line left by a kill, so appends start on a fresh line."""
        if not path.exists() or path.stat().st_size == 0:
            return
        with path.open("rb+") as f:
            data = f.read()
            if not data.endswith(b"\n"):
                f.truncate(data.rfind(b"\n") + 1)

    def append(self, record: dict[str, Any]) -> None:
        os.write(self._fd, (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
        self.written += 1

    def close(self) -> None:
        os.fsync(self._fd)
        os.close(self._fd)
