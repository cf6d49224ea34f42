"""Batch mode: a model's planned prompts through the provider's batch API (``langbite run --batch``).

Providers take large jobs at half price and outside the interactive rate
limits if they may answer within hours. For OpenAI (and servers that speak its
API) one batch is: upload a JSONL file of requests, create the batch, poll it,
download the output (and error) files. Up to :data:`MAX_PER_BATCH` prompts go
in one batch, so a 10,000-prompt campaign costs two requests plus polling.

Everything else is the interactive run's: answers go to the same journal and
cache, and reports cannot tell the two apart. The run folder keeps
``batches.json`` (written right after each batch is created), so running the
same command after a crash, a closed laptop or Ctrl-C polls the batches
already paid for instead of submitting them again. A request that the batch
answered with an error, or that an expired or failed batch never answered, is
retried interactively, through the engine's retries, limits and budget.
Cache hits are journaled without being sent.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langbite.execute.engine import Engine, Job, describe
from langbite.execute.services import InvalidReply, read_completion

log = logging.getLogger(__name__)
MAX_PER_BATCH = 50_000  # OpenAI's limit of requests per batch
STATE_FILE = "batches.json"
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})


def supports_batch(service: Any) -> bool:
    """Whether a model's service can take batches (OpenAI and OpenAI-compatible servers, today)."""
    return callable(getattr(service, "create_batch", None))


@dataclass
class BatchState:
    """What ``batches.json`` remembers: every batch created for this run folder."""

    path: Path
    batches: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def load(cls, run_dir: Path) -> BatchState:
        path = run_dir / STATE_FILE
        if path.is_file():
            return cls(path, json.loads(path.read_text(encoding="utf-8")).get("batches", []))
        return cls(path)

    def save(self) -> None:
        """Write atomically: a crash leaves the old file or the new one, never half of one."""
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"batches": self.batches}, indent=1), encoding="utf-8")
        os.replace(tmp, self.path)


class BatchRunner:
    """Runs one model's jobs through batches, then retries what the batches did not answer."""

    def __init__(self, engine: Engine, run_dir: Path, poll_seconds: float = 30.0) -> None:
        self.engine = engine
        self.run_dir = run_dir
        self.folder = run_dir / "batches"
        self.poll_seconds = poll_seconds
        self.state = BatchState.load(run_dir)

    async def run(self, spec: str, jobs: Iterable[Job]) -> None:
        """Submit what is not already in a batch, wait for every batch of ``spec``, journal the answers."""
        service = self.engine.services[spec]
        in_flight = {(e["key"], e["repetition"]) for b in self._batches(spec) if b["status"] != "collected"
                     for e in self._jobs_of(b).values()}
        todo: list[Job] = []
        for job in jobs:
            if (job.key, job.repetition) in in_flight:
                continue
            if self.engine.cache is not None:
                hit = self.engine.cache.get(self.engine.cache_key_for(spec, job.prompt, job.repetition))
                if hit is not None:
                    self.engine.stats.cache_hits += 1
                    self.engine.record(job, hit, cached=True)
                    continue
            todo.append(job)
        for start in range(0, len(todo), MAX_PER_BATCH):
            await self._submit(spec, service, todo[start:start + MAX_PER_BATCH])
        for batch in self._batches(spec):
            if batch["status"] != "collected":
                await self._collect(spec, service, batch)

    def _batches(self, spec: str) -> list[dict[str, Any]]:
        return [b for b in self.state.batches if b["model"] == spec]

    def _jobs_of(self, batch: dict[str, Any]) -> dict[str, dict[str, Any]]:
        with open(self.run_dir / batch["jobs"], encoding="utf-8") as f:
            return {e["custom_id"]: e for e in map(json.loads, f)}

    async def _submit(self, spec: str, service: Any, jobs: list[Job]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        n = len(self.state.batches) + 1
        requests, mapping = self.folder / f"{n:04d}.requests.jsonl", self.folder / f"{n:04d}.jobs.jsonl"
        with open(requests, "w", encoding="utf-8") as rf, open(mapping, "w", encoding="utf-8") as mf:
            for i, job in enumerate(jobs):  # streamed to disk: memory stays flat however large the batch
                custom_id = f"{n}-{i}"
                params = self.engine.params_for(spec, job.repetition)
                rf.write(json.dumps({"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions",
                                     "body": service.request_body(job.prompt, params)}) + "\n")
                mf.write(json.dumps({"custom_id": custom_id, "key": job.key, "repetition": job.repetition,
                                     "prompt": job.prompt}) + "\n")
        file_id = await service.upload_batch_file(requests)
        batch_id = await service.create_batch(file_id)
        self.engine.stats.calls += 2
        self.state.batches.append({"id": batch_id, "model": spec, "status": "submitted", "size": len(jobs),
                                   "jobs": str(mapping.relative_to(self.run_dir)), "created": time.time()})
        self.state.save()  # before anything else can fail: a re-run must find this batch, not pay twice
        log.info("%s: batch %s submitted with %d prompts", spec, batch_id, len(jobs))

    async def _collect(self, spec: str, service: Any, batch: dict[str, Any]) -> None:
        while True:
            info = await service.batch_status(batch["id"])
            if info["status"] in TERMINAL:
                break
            log.info("%s: batch %s is %s; next look in %.0f s", spec, batch["id"], info["status"], self.poll_seconds)
            await asyncio.sleep(self.poll_seconds)
        jobs = self._jobs_of(batch)
        answered: set[str] = set()
        errors: dict[str, str] = {}
        for file_id in (info.get("output_file_id"), info.get("error_file_id")):
            if not file_id:
                continue
            for line in (await service.batch_file_text(file_id)).splitlines():
                if not line.strip():
                    continue
                record = json.loads(line)
                custom_id = record.get("custom_id")
                entry = jobs.get(custom_id)
                if entry is None or custom_id in answered:
                    continue
                response = record.get("response") or {}
                if response.get("status_code") == 200:
                    try:
                        generation = read_completion(json.dumps(response.get("body")).encode())
                    except InvalidReply as exc:
                        errors[custom_id] = str(exc)
                        continue
                    job = Job(spec, entry["key"], entry["prompt"], entry["repetition"])
                    if self.engine.cache is not None:
                        self.engine.cache.put(self.engine.cache_key_for(spec, job.prompt, job.repetition), generation)
                    self.engine.count_tokens(generation)
                    self.engine.record(job, generation)
                    answered.add(custom_id)
                else:
                    error = record.get("error") or (response.get("body") or {}).get("error") or {}
                    errors[custom_id] = str(error.get("message", error) if isinstance(error, dict) else error)
        missing = [e for cid, e in jobs.items() if cid not in answered]
        if missing:
            log.warning("%s: batch %s ended %s with %d of %d prompts unanswered; asking them interactively",
                        spec, batch["id"], info["status"], len(missing), len(jobs))
        for entry in missing:  # the engine's retries, limits and budget apply; a fault stays an error row
            job = Job(spec, entry["key"], entry["prompt"], entry["repetition"])
            retried, error, cached = await self.engine.complete(spec, job.prompt, job.repetition)
            if retried is None and not error:
                error = errors.get(entry["custom_id"], "no answer in the batch")
            self.engine.record(job, retried, error=error, cached=cached)  # complete() counted its tokens
        batch["status"] = "collected"
        batch["ended_as"] = info["status"]
        self.state.save()


async def run_in_batches(engine: Engine, run_dir: Path, jobs: dict[str, Iterable[Job]],
                         poll_seconds: float) -> list[str]:
    """Send the jobs of every model that supports batches through batches; return the models whose
    prompts must run interactively (no batch API, or the batch API failed: the caller recomputes
    what is still unanswered from the journal, so nothing is asked twice)."""
    interactive: list[str] = []
    runner = BatchRunner(engine, run_dir, poll_seconds)
    started = time.perf_counter()
    for spec, model_jobs in jobs.items():
        if supports_batch(engine.services[spec]):
            try:
                await runner.run(spec, model_jobs)
            except Exception as exc:  # the provider boundary: a batch API fault must not lose the run
                log.warning("%s: batch mode failed (%s); the remaining prompts run interactively",
                            spec, describe(exc, engine.timeout))
                interactive.append(spec)
        else:
            log.info("%s has no batch API here; its prompts run interactively", spec)
            interactive.append(spec)
    engine.stats.seconds += time.perf_counter() - started
    if engine.cache is not None:
        engine.cache.flush()
    return interactive
