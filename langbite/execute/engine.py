"""Run prompts against models: concurrent, retried, cached and journaled.

Each model gets its own pool of worker coroutines (its concurrency limit)
pulling jobs from a shared iterator, so memory stays flat however large the
plan. Transient faults (timeouts, connection errors, 429 and 5xx) are retried
with exponential backoff and jitter, honouring ``Retry-After``; after the
last retry the prompt is recorded as an error with its reason and the run
goes on. Every answer is written to the journal as it arrives.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from langbite.execute.cache import ResponseCache, cache_key
from langbite.execute.journal import Journal
from langbite.execute.services import Generation, GenerationParams, LLMService
from langbite.model import Answer, Instance

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Job:
    model: str
    instance: Instance
    repetition: int


@dataclass
class Stats:
    calls: int = 0
    cache_hits: int = 0
    errors: int = 0
    retries: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0

    def line(self) -> str:
        return (f"{self.calls} calls, {self.cache_hits} cache hits, {self.errors} errors, "
                f"{self.retries} retries, tokens in/out {self.tokens_in}/{self.tokens_out}, "
                f"execution {self.seconds:.1f}s")


def is_transient(exc: BaseException) -> bool:
    """Faults worth retrying: timeouts, connection errors, 408, 429 and 5xx."""
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError, ConnectionError)):
        return True
    status = getattr(exc, "status_code", None) or getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(status, int):
        return status in (408, 409, 429) or status >= 500
    name = type(exc).__name__
    return any(s in name for s in ("Timeout", "Connection", "RateLimit", "ServiceUnavailable", "InternalServer"))


def retry_after(exc: BaseException | None) -> float | None:
    """Seconds asked for by a ``Retry-After`` header, if the error carries one."""
    headers: Any = getattr(getattr(exc, "response", None), "headers", None)
    value = headers.get("retry-after") if headers is not None else None
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        when = email.utils.parsedate_to_datetime(value)
        return max(when.timestamp() - time.time(), 0.0) if when else None


class _Wait:
    """Exponential backoff with jitter (0.5 s, 1 s, 2 s … up to 30 s), unless the server said how long."""

    @staticmethod
    def backoff(failures: int) -> float:
        return min(30.0, 0.5 * 2.0 ** (failures - 1)) + random.uniform(0, 0.5)

    def __call__(self, state: RetryCallState) -> float:
        asked = retry_after(state.outcome.exception() if state.outcome else None)
        # the loop's attempt n is the call's attempt n + 1 (the first ran before the loop)
        return min(asked, 120.0) if asked is not None else self.backoff(state.attempt_number + 1)

    def first(self, exc: BaseException) -> float:
        """The wait after a call's first failure."""
        asked = retry_after(exc)
        return min(asked, 120.0) if asked is not None else self.backoff(1)


class RateLimiter:
    """A token bucket: at most ``per_minute`` units a minute, spent as requests or tokens.

    For requests per minute every call costs 1; for tokens per minute a call costs
    its estimated tokens (prompt characters / 4 + max tokens), so a provider's
    quota is respected before it has to answer 429.
    """

    def __init__(self, per_minute: float, cost: Callable[[str, int], float] | None = None) -> None:
        self.rate = per_minute / 60.0
        self.capacity = max(per_minute / 60.0, 1.0)  # allow about one second's worth at once
        self.level = self.capacity
        self.cost = cost or (lambda _prompt, _max: 1.0)
        self._stamp = time.monotonic()
        self._lock = asyncio.Lock()

    async def wait(self, prompt: str = "", max_tokens: int = 0) -> None:
        need = min(self.cost(prompt, max_tokens), self.capacity)
        async with self._lock:
            while True:
                now = time.monotonic()
                self.level = min(self.capacity, self.level + (now - self._stamp) * self.rate)
                self._stamp = now
                if self.level >= need:
                    self.level -= need
                    return
                await asyncio.sleep((need - self.level) / self.rate)


def estimated_tokens(prompt: str, max_tokens: int) -> float:
    return len(prompt) / 4 + max_tokens


class Engine:
    """Executes jobs; also answers single prompts for the judge LLM."""

    def __init__(self, services: dict[str, LLMService], params: GenerationParams, *, retries: int = 3,
                 timeout: float = 120.0, cache: ResponseCache | None = None, journal: Journal | None = None,
                 limiters: dict[str, list[RateLimiter]] | None = None) -> None:
        self.services = services
        self.params = params
        self.retries = retries
        self.timeout = timeout
        self.cache = cache
        self.journal = journal
        self.limiters = limiters or {}
        self.stats = Stats()

    def params_for(self, repetition: int) -> GenerationParams:
        """Repetition r samples with seed + r, so repeated answers are distinct samples."""
        p = self.params
        return GenerationParams(p.temperature, p.max_tokens, p.seed + repetition)

    async def _limit(self, spec: str, prompt: str, params: GenerationParams) -> None:
        for limiter in self.limiters.get(spec, ()):
            await limiter.wait(prompt, params.max_tokens)

    async def _call(self, spec: str, service: LLMService, prompt: str, params: GenerationParams) -> Generation:
        await self._limit(spec, prompt, params)
        self.stats.calls += 1
        try:  # the common case, without building a retry loop
            async with asyncio.timeout(self.timeout):  # unlike wait_for, no extra task per call
                return await service.agenerate(prompt, params)
        except Exception as exc:
            if not is_transient(exc) or self.retries == 0:
                raise
            first = exc
        await asyncio.sleep(_Wait().first(first))
        self.stats.retries += 1
        async for attempt in AsyncRetrying(stop=stop_after_attempt(self.retries), wait=_Wait(),
                                           retry=retry_if_exception(is_transient), reraise=True):
            with attempt:
                if attempt.retry_state.attempt_number > 1:
                    self.stats.retries += 1
                await self._limit(spec, prompt, params)
                self.stats.calls += 1
                async with asyncio.timeout(self.timeout):
                    return await service.agenerate(prompt, params)
        raise AssertionError("unreachable")  # AsyncRetrying either returns or re-raises

    async def complete(self, spec: str, prompt: str, repetition: int = 0) -> tuple[Generation | None, str, bool]:
        """(generation, error, cached) for one prompt; provider faults become an error string."""
        service = self.services[spec]
        params = self.params_for(repetition)
        key = cache_key(service.provider, service.model, service.identity, prompt, params, repetition)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                return hit, "", True
        try:
            generation = await self._call(spec, service, prompt, params)
        except Exception as exc:  # the provider boundary: any fault of the model's side is data
            self.stats.errors += 1
            reason = f"{type(exc).__name__}: {exc}".strip() or type(exc).__name__
            return None, reason[:500], False
        self.stats.tokens_in += generation.tokens_in
        self.stats.tokens_out += generation.tokens_out
        if self.cache is not None:
            self.cache.put(key, generation)
        return generation, "", False

    async def _worker(self, jobs: Iterator[Job], bar: Any) -> None:
        for job in jobs:
            start = time.perf_counter()
            inst = job.instance
            generation, error, cached = await self.complete(job.model, inst.prompt, job.repetition)
            answer = Answer(
                model=job.model, requirement=inst.requirement, language=inst.language,
                template_id=inst.template_id, index=inst.index, repetition=job.repetition,
                text=generation.text if generation else "", error=error, cached=cached,
                tokens_in=generation.tokens_in if generation else 0,
                tokens_out=generation.tokens_out if generation else 0,
                seconds=round(time.perf_counter() - start, 4),
            )
            if self.journal is not None:
                self.journal.write(answer)
            if bar is not None:
                bar.update(1)
                if error:
                    bar.set_postfix(errors=self.stats.errors, cached=self.stats.cache_hits, refresh=False)

    async def run(self, jobs: dict[str, Iterable[Job]], concurrency: dict[str, int], total: int,
                  progress: bool = True) -> Stats:
        """Run every model's jobs side by side, each under its concurrency limit."""
        from tqdm import tqdm

        started = time.perf_counter()
        bar = tqdm(total=total, unit="call", desc="langbite", disable=not progress or total == 0,
                   dynamic_ncols=True, leave=False)
        try:
            tasks = []
            for spec, model_jobs in jobs.items():
                shared = iter(model_jobs)
                limit = concurrency.get(spec, 1)
                cap = self.services[spec].max_concurrency
                n = max(1, min(limit, cap) if cap else limit)
                tasks += [asyncio.create_task(self._worker(shared, bar)) for _ in range(n)]
            await asyncio.gather(*tasks)
        finally:
            bar.close()
            if self.cache is not None:
                self.cache.flush()
            self.stats.seconds += time.perf_counter() - started
        return self.stats
