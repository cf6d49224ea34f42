"""Generators for probes: anything with ``generate(texts: list[str]) -> list[str]``.

:class:`ModelGenerator` sends texts to a langbite model spec through the same
engine as template tests (response cache, concurrency, retries with backoff,
progress bar). Identical texts in one batch are repetitions: the r-th copy is
sampled with seed + r, so repeated attempts are distinct samples and each is
cached on its own.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from langbite.execute.cache import ResponseCache
from langbite.execute.engine import Engine
from langbite.execute.providers import build_service, resolve_spec
from langbite.execute.services import GenerationParams, close_services
from langbite.model import ModelSpec


class RandomGenerator:
    """Answers with a random choice from ``options`` (GenderBench's null model)."""

    def __init__(self, options: Sequence[str], seed: int = 0) -> None:
        self.options = list(options)
        self.rng = random.Random(seed)

    def generate(self, texts: list[str]) -> list[str]:
        return [self.rng.choice(self.options) for _ in texts]


class ModelGenerator:
    """A langbite model spec as a probe generator."""

    def __init__(self, spec: str | ModelSpec, *, temperature: float = 1.0, max_tokens: int = 300, seed: int = 0,
                 concurrency: int = 8, retries: int = 3, timeout: float = 120.0, use_cache: bool = True,
                 progress: bool = True, base_url: str | None = None) -> None:
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
        seen: Counter[str] = Counter()
        jobs = []
        for text in texts:
            jobs.append((text, seen[text]))
            seen[text] += 1
        return asyncio.run(self._run(jobs))

    async def _run(self, jobs: list[tuple[str, int]]) -> list[str | None]:
        from tqdm import tqdm

        cache = ResponseCache() if self.use_cache else None
        engine = Engine({self.spec.spec: self.service}, self.params, retries=self.retries, timeout=self.timeout,
                        cache=cache)
        answers: list[str | None] = [None] * len(jobs)
        self.errors = {}
        queue = iter(range(len(jobs)))
        bar = tqdm(total=len(jobs), unit="call", desc=self.spec.spec, disable=not self.progress, leave=False)

        async def worker() -> None:
            for i in queue:
                text, rep = jobs[i]
                generation, error, _ = await engine.complete(self.spec.spec, text, rep)
                if generation is None:
                    self.errors[i] = error
                else:
                    answers[i] = generation.text
                bar.update(1)

        limit = self.service.max_concurrency or self.concurrency
        try:
            await asyncio.gather(*(worker() for _ in range(max(1, min(limit, self.concurrency)))))
        finally:
            bar.close()
            await close_services([self.service])
            if cache is not None:
                cache.close()
        self.stats = engine.stats
        return answers
