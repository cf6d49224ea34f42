"""Persistent response cache (SQLite) shared by every run on this machine.

The key covers everything that can change an answer: provider, model, the
service identity (base URL, model file hash), the full prompt, temperature,
max tokens, seed and repetition index. Re-running a finished run therefore
makes no model calls. The cache lives in the user's cache folder
(``XDG_CACHE_HOME`` honoured, ``LANGBITE_CACHE_DIR`` overrides).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import time
from pathlib import Path

from langbite.execute.services import Generation
from langbite.model import GenerationParams
from langbite.resources import default_cache_dir

log = logging.getLogger(__name__)


def default_cache_path() -> Path:
    """The response cache's database file."""
    return default_cache_dir() / "responses.sqlite3"


def cache_key(provider: str, model: str, identity: str, prompt: str, params: GenerationParams,
              repetition: int) -> str:
    fields: list[object] = [provider, model, identity, prompt, params.temperature, params.max_tokens, params.seed,
                            repetition]
    if params.system_prompt:  # appended only when set, so answers cached without one keep their keys
        fields.append({"system_prompt": params.system_prompt})
    material = json.dumps(fields, ensure_ascii=False)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class ResponseCache:
    """A key → answer table; commits in small batches (the run journal is the durable record).

    A cache file that SQLite cannot read (truncated, overwritten, not a
    database) is moved aside with a warning and a new one is started: the
    cache only saves calls, so losing it never loses a run's answers.
    """

    def __init__(self, path: Path | None = None, batch: int = 64) -> None:
        self.path = path or default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = self._open()
        except sqlite3.DatabaseError as exc:
            aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
            log.warning("the response cache %s is unreadable (%s); moved it to %s and started a new one",
                        self.path, exc, aside)
            for suffix in ("", "-wal", "-shm"):
                old = Path(str(self.path) + suffix)
                if old.exists():
                    old.replace(Path(str(aside) + suffix))
            self._db = self._open()
        self._pending: list[tuple[str, str, int, int, float]] = []
        self._pending_readings: list[tuple[str, str, float]] = []
        self._batch = batch

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, text TEXT NOT NULL,"
                " tokens_in INTEGER, tokens_out INTEGER, created REAL)"
            )
            db.execute("CREATE TABLE IF NOT EXISTS readings (key TEXT PRIMARY KEY, result TEXT NOT NULL, created REAL)")
            db.execute("SELECT key FROM responses ORDER BY rowid DESC LIMIT 1").fetchall()
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def count(self) -> int:
        """How many answers the cache holds; 0, with a warning, when its pages are damaged."""
        self.flush()
        try:
            return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            self._damaged(exc)
            return 0

    def _damaged(self, exc: sqlite3.DatabaseError) -> None:
        if not getattr(self, "_warned", False):
            log.warning("the response cache %s is damaged (%s); answers are neither read from it nor saved to it "
                        "in this run; run 'langbite cache clear' to start a new one", self.path, exc)
            self._warned = True

    def get(self, key: str) -> Generation | None:
        try:
            row = self._db.execute("SELECT text, tokens_in, tokens_out FROM responses WHERE key = ?",
                                   (key,)).fetchone()
        except sqlite3.DatabaseError as exc:
            self._damaged(exc)
            return None
        if row is None:
            for pending in self._pending:
                if pending[0] == key:
                    return Generation(pending[1], pending[2], pending[3])
            return None
        return Generation(row[0], row[1] or 0, row[2] or 0)

    def put(self, key: str, generation: Generation) -> None:
        self._pending.append((key, generation.text, generation.tokens_in, generation.tokens_out, time.time()))
        if len(self._pending) >= self._batch:
            self.flush()

    def get_reading(self, key: str) -> str | None:
        """A remembered template reading (langbite.evaluate.memo encodes and keys them), or None."""
        try:
            row = self._db.execute("SELECT result FROM readings WHERE key = ?", (key,)).fetchone()
        except sqlite3.DatabaseError as exc:
            self._damaged(exc)
            return None
        return str(row[0]) if row else None

    def put_reading(self, key: str, text: str) -> None:
        self._pending_readings.append((key, text, time.time()))

    def flush(self) -> None:
        if not self._pending and not self._pending_readings:
            return
        try:
            with self._db:
                self._db.execute("BEGIN")
                self._db.executemany("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?)", self._pending)
                self._db.executemany("INSERT OR REPLACE INTO readings VALUES (?, ?, ?)", self._pending_readings)
        except sqlite3.DatabaseError as exc:
            self._damaged(exc)
        self._pending.clear()
        self._pending_readings.clear()

    def clear(self) -> int:
        """Empty the cache and its remembered readings; return how many answers it held (0 when it was
        damaged, and is now rebuilt)."""
        self._pending.clear()
        self._pending_readings.clear()
        try:
            n = self.count()
            self._db.execute("DELETE FROM responses")
            self._db.execute("DROP TABLE IF EXISTS readings")  # made again when the cache is next opened
            self._db.execute("VACUUM")
            return n
        except sqlite3.DatabaseError:
            self._db.close()
            for suffix in ("", "-wal", "-shm"):
                Path(str(self.path) + suffix).unlink(missing_ok=True)
            self._db = self._open()
            return 0

    def close(self) -> None:
        self.flush()
        self._db.close()
