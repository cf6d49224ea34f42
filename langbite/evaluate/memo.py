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

The memo lives in the response cache's SQLite file (its own table, written and
flushed with the answers), so ``langbite cache clear`` and ``--no-cache`` apply
to it as to answers, and a damaged database is reported as the cache reports it.
A row that does not decode switches the memo off with a warning; it only saves
time, so losing it never changes a verdict.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from functools import cache
from typing import Protocol

from langbite.model import Outcome, Verdict
from langbite.oracles import Case, Oracle, OracleResult
from langbite.oracles.lexicon import all_lexicons, lexicons
from langbite.resources import source_digest

log = logging.getLogger(__name__)

# The code a reading runs: the oracles with their lexicons, the JSON reader and the outcome types.
_READING_CODE = ("oracles/*.py", "oracles/data/lexicons/*.json", "jsontext.py", "model.py")


@cache
def fingerprint(lexicons_generation: int) -> str:
    """What the reading code and the registered lexicons are, as a digest (one per lexicon registry state)."""
    digest = hashlib.sha256(source_digest(*_READING_CODE).encode())
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


class Store(Protocol):
    """Where readings are kept: the response cache (:class:`langbite.execute.cache.ResponseCache`)."""

    def get_reading(self, key: str) -> str | None: ...

    def put_reading(self, key: str, text: str) -> None: ...


class ReadingMemo:
    """Template readings by key, kept in the response cache's database (which writes and flushes them)."""

    def __init__(self, store: Store) -> None:
        self.store: Store | None = store

    def get(self, key: str) -> OracleResult | None:
        if self.store is None:
            return None
        text = self.store.get_reading(key)
        if text is None:
            return None
        try:
            return _decode(text)
        except (ValueError, TypeError) as exc:  # a row the memo did not write is never trusted
            log.warning("remembered readings are off for this run (%s): every answer is read again", exc)
            self.store = None
            return None

    def put(self, key: str, result: OracleResult) -> None:
        if self.store is not None:
            self.store.put_reading(key, _encode(result))
