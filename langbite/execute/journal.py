"""The run journal: every answer appended to ``answers.jsonl`` as it arrives.

One JSON object per line, flushed after each write, so a crash, a SIGKILL or
Ctrl-C loses at most the requests in flight. Running the same command again
with the same ``--out`` reads the journal and completes only what is missing;
a line cut short by a kill is ignored (its request runs again). The CSV
reports are derived from the journal in plan order, so a resumed run writes
the same reports as an uninterrupted one.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict
from pathlib import Path
from typing import IO

from langbite.model import Answer

log = logging.getLogger(__name__)
JOURNAL = "answers.jsonl"

Key = tuple[str, str, str, str, int, int]


def read_journal(run_dir: Path) -> dict[Key, Answer]:
    """Answers recorded so far; a later line for the same key replaces an earlier one."""
    path = run_dir / JOURNAL
    answers: dict[Key, Answer] = {}
    if not path.exists():
        return answers
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.endswith("\n"):
                log.info("%s:%d: ignoring a line cut short by an interruption", path, n)
                break
            try:
                answer = Answer(**json.loads(line))
            except (json.JSONDecodeError, TypeError):
                log.warning("%s:%d: ignoring an unreadable line", path, n)
                continue
            answers[answer.key] = answer
    return answers


class Journal:
    """Append-only writer of answers."""

    def __init__(self, run_dir: Path) -> None:
        run_dir.mkdir(parents=True, exist_ok=True)
        path = run_dir / JOURNAL
        self._repair(path)
        self._f: IO[str] = path.open("a", encoding="utf-8")
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

    def write(self, answer: Answer) -> None:
        self._f.write(json.dumps(asdict(answer), ensure_ascii=False) + "\n")
        self._f.flush()
        self.written += 1

    def close(self) -> None:
        self._f.flush()
        os.fsync(self._f.fileno())
        self._f.close()
