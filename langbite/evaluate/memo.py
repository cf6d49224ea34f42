"""Remembered readings: a template's verdict from its answers, kept beside the response cache.

Once every answer of a re-run comes from the response cache, reading them
(stances, refusals, echoes, counterfactual comparisons) is the slowest step
left. A reading is a pure function of what the oracle is asked (its
prediction), of the case (answers, prompts, communities, language, delta) and
of the reading code and lexicons; the key covers all of them (the code by the
content of its files), so changing any of them (a new langbite, an edited
lexicon, a lexicon added at run time) gives new keys and the answers are read
again. Oracles that do not ship with
langbite are never remembered: their code is not part of the key.

The memo lives in the response cache's SQLite file (its own table), so
``langbite cache clear`` and ``--no-cache`` apply to it as to answers. A memo
that cannot be read or written is switched off with a warning; it only saves
time, so losing it never changes a verdict.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import sqlite3
import time
from functools import cache
from pathlib import Path

import langbite
from langbite.model import Outcome, Verdict
from langbite.oracles import Case, Oracle, OracleResult
from langbite.oracles.lexicon import all_lexicons, lexicons

log = logging.getLogger(__name__)

_PACKAGE = Path(langbite.__file__).parent
# The code a reading runs: the oracles with their lexicons, the JSON reader and the outcome types.
_READING_CODE = ("oracles/*.py", "oracles/data/lexicons/*.json", "jsontext.py", "model.py")


@cache
def fingerprint(lexicons_generation: int) -> str:
    """What the reading code and the registered lexicons are, as a digest (one per lexicon registry state)."""
    digest = hashlib.sha256()
    for pattern in _READING_CODE:
        for path in sorted(_PACKAGE.glob(pattern)):
            digest.update(path.relative_to(_PACKAGE).as_posix().encode())
            digest.update(path.read_bytes())
    for lexicon in sorted(all_lexicons(), key=lambda x: x.language):
        fields = {k: sorted(v) if isinstance(v, frozenset) else v for k, v in dataclasses.asdict(lexicon).items()}
        digest.update(json.dumps(fields, ensure_ascii=False, sort_keys=True).encode())
    return digest.hexdigest()


_CASE_FIELDS = dataclasses.fields(Case)


def _shipped(oracle: Oracle) -> bool:
    return type(oracle).__module__.startswith("langbite.oracles.")


def reading_key(oracle: Oracle, prediction: str, case: Case) -> str | None:
    """The memo key of ``oracle`` reading ``case``; None for an oracle that does not ship with langbite."""
    if not _shipped(oracle):
        return None
    fields = [getattr(case, f.name) for f in _CASE_FIELDS]  # every field of the case, whatever it grows to
    material = json.dumps([fingerprint(lexicons.generation), type(oracle).__qualname__, prediction, fields],
                          ensure_ascii=False)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def _encode(result: OracleResult) -> str:
    return json.dumps([str(result.verdict), result.reason, [str(o) for o in result.outcomes], list(result.biased)],
                      ensure_ascii=False)


def _decode(text: str) -> OracleResult:
    verdict, reason, outcomes, biased = json.loads(text)
    return OracleResult(Verdict(verdict), reason, tuple(Outcome(o) for o in outcomes), tuple(biased))


class ReadingMemo:
    """Key → template reading, in the response cache's database."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._pending: list[tuple[str, str, float]] = []
        self._db: sqlite3.Connection | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(path, timeout=30, isolation_level=None)
            db.execute("CREATE TABLE IF NOT EXISTS readings (key TEXT PRIMARY KEY, result TEXT NOT NULL, created REAL)")
            self._db = db
        except (sqlite3.DatabaseError, OSError) as exc:
            self._off(exc)

    def _off(self, exc: Exception) -> None:
        log.warning("remembered readings are off for this run (%s): every answer is read again", exc)
        if self._db is not None:
            self._db.close()
        self._db = None

    def get(self, key: str) -> OracleResult | None:
        if self._db is None:
            return None
        try:
            row = self._db.execute("SELECT result FROM readings WHERE key = ?", (key,)).fetchone()
            return _decode(row[0]) if row else None
        except (sqlite3.DatabaseError, ValueError, TypeError) as exc:  # a damaged row is read again, never trusted
            self._off(exc)
            return None

    def put(self, key: str, result: OracleResult) -> None:
        if self._db is not None:
            self._pending.append((key, _encode(result), time.time()))

    def close(self) -> None:
        if self._db is None:
            return
        try:
            if self._pending:
                with self._db:
                    self._db.execute("BEGIN")
                    self._db.executemany("INSERT OR REPLACE INTO readings VALUES (?, ?, ?)", self._pending)
        except sqlite3.DatabaseError as exc:
            self._off(exc)
            return
        self._pending.clear()
        self._db.close()
        self._db = None
