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
from dataclasses import fields
from pathlib import Path
from typing import Any

from langbite.model import Answer, Instance

log = logging.getLogger(__name__)
JOURNAL = "answers.jsonl"

Key = tuple[str, str, str, str, int, int]  # model, requirement, language, template id, instance, repetition
_FIELDS = {f.name for f in fields(Answer)}


def answer_key(model: str, instance: Instance, repetition: int) -> Key:
    """The key of one answer: resume, evaluation and reports must build it identically."""
    return (model, instance.requirement, instance.language, instance.template_id, instance.index, repetition)


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
                raw = json.loads(line)
                answer = Answer(**{k: v for k, v in raw.items() if k in _FIELDS})
            except (json.JSONDecodeError, TypeError):
                log.warning("%s:%d: ignoring an unreadable line", path, n)
                continue
            answers[answer.key] = answer
    return answers


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


class Journal(JsonLines):
    """The run's answers, in ``answers.jsonl``."""

    def __init__(self, run_dir: Path) -> None:
        super().__init__(run_dir / JOURNAL)

    def write(self, answer: Answer) -> None:
        self.append(vars(answer))  # vars() not asdict(): an Answer holds only scalars; asdict deep-copies
