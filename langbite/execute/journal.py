"""The run journal: every answer appended to ``answers.jsonl`` as it arrives.

One JSON object per line, one ``write(2)`` per line, so a crash, a SIGKILL or
Ctrl-C loses at most the requests in flight. Running the same command again
with the same ``--out`` reads the journal and completes only what is missing;
a line cut short by a kill is dropped (its request runs again), and so is a
line that cannot be read, with a warning. Template instances and probe
attempts share the journal: each answer carries its job's key. The reports
are derived from the journal in plan order, so a resumed run writes the same
reports as an uninterrupted one.
"""

from __future__ import annotations

import json
import logging
from dataclasses import fields
from pathlib import Path
from typing import Any

from langbite.jsonl import JsonLines
from langbite.model import Answer

log = logging.getLogger(__name__)
JOURNAL = "answers.jsonl"

Key = tuple[str, str, int]  # model, job key, repetition: see langbite.model.answer_key
_FIELDS = {f.name for f in fields(Answer)}
_TYPES = {"model": str, "key": str, "repetition": int, "text": str, "error": str}


def _answer(raw: Any) -> Answer | None:
    if not isinstance(raw, dict) or any(not isinstance(raw.get(k), t) for k, t in _TYPES.items()):
        return None
    try:
        return Answer(**{k: v for k, v in raw.items() if k in _FIELDS})
    except TypeError:
        return None


class _Duplicate(ValueError):
    """A JSON object that gives one field twice: which value was meant cannot be told."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _Duplicate(key)
        seen[key] = value
    return seen


def read_journal(run_dir: Path) -> dict[Key, Answer]:
    """Answers recorded so far. A later line for the same key replaces an earlier error (a retry on resume);
    a second *answer* for a key that already has one is not langbite's (a run journals one answer per call):
    it is ignored with a warning, so a hand-edited journal cannot flip a verdict silently. A line that gives a
    field twice is unreadable."""
    path = run_dir / JOURNAL
    answers: dict[Key, Answer] = {}
    if not path.exists():
        return answers
    bad = 0
    with path.open(encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            if not line.endswith("\n"):
                log.info("%s:%d: ignoring a line cut short by an interruption", path, n)
                break
            try:
                answer = _answer(json.loads(line, object_pairs_hook=_no_duplicates))
            except (json.JSONDecodeError, _Duplicate):
                answer = None
            if answer is None:
                bad += 1
                if bad <= 3:
                    log.warning("%s:%d: unreadable line ignored; its prompt runs again on resume", path, n)
                continue
            earlier = answers.get(answer.journal_key)
            if earlier is not None and not earlier.error:
                if answer.text != earlier.text or answer.error:
                    log.warning("%s:%d: a second answer for a call that already has one is ignored (the journal "
                                "holds one answer per call; was it edited?)", path, n)
                continue
            answers[answer.journal_key] = answer
    if bad > 3:
        log.warning("%s: %d unreadable lines ignored in all", path, bad)
    return answers


class Journal(JsonLines):
    """The run's answers, in ``answers.jsonl``."""

    def __init__(self, run_dir: Path) -> None:
        super().__init__(run_dir / JOURNAL)

    def write(self, answer: Answer) -> None:
        self.append(vars(answer))  # vars() not asdict(): an Answer holds only scalars; asdict deep-copies
