"""The engine of a run: every model's service, its limits, system prompt and budget, and every suite's jobs.

One engine runs the jobs of every suite of a run (template instances, probe
attempts, …), so they share the journal, the cache, the limits, the budget and
batch mode. What is already journaled (answered without error) is skipped: a
run folder resumes where it stopped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from pathlib import Path
from typing import Any, Protocol

from langbite.errors import InputError, InputErrors
from langbite.execute.budget import Budget, price_of
from langbite.execute.engine import Engine, Job, Stats
from langbite.execute.journal import Journal, read_journal
from langbite.execute.limits import Limits
from langbite.execute.providers import build_service, resolve_spec
from langbite.execute.services import ChatService
from langbite.model import ModelSpec, RequirementsModel, answer_key

Done = set[tuple[str, str, int]]


class JobSource(Protocol):
    """What the engine needs of a run's plan: its models, and each suite's jobs for a model."""

    @property
    def config(self) -> RequirementsModel: ...

    @property
    def models(self) -> tuple[ModelSpec, ...]: ...

    @property
    def suites(self) -> Sequence[Any]: ...

    def n_calls(self, model: str | None = None) -> int: ...


class Options(Protocol):
    batch: bool
    batch_poll: float
    concurrency: int | None
    progress: bool


def build_services(models: Iterable[ModelSpec], judge: str | None = None) -> dict[str, ChatService]:
    """Build every model's service (and the judge's), failing before any call."""
    specs = list(models)
    if judge:
        specs.append(resolve_spec(ModelSpec(judge)))
    services: dict[str, ChatService] = {}
    errors: list[InputError] = []
    for s in specs:
        if s.spec in services:
            continue
        try:  # the provider gets the spec without its #name: variants share one model
            services[s.spec] = build_service(dataclasses.replace(s, spec=s.base_spec))
        except InputErrors as exc:
            errors.extend(exc.errors)
    if errors:
        raise InputErrors(errors)
    return services


def build_engine(config: RequirementsModel, services: dict[str, ChatService], journal: Journal | None, *,
                 use_cache: bool = True) -> Engine:
    """The run's engine: generation parameters, retries, timeout, cache, limits, system prompts and budget."""
    from langbite.execute.cache import ResponseCache

    limits = {m.spec: Limits(m.requests_per_minute, m.tokens_per_minute) for m in config.models}
    budget = None
    if config.budget is not None:
        judge = [resolve_spec(ModelSpec(config.judge))] if config.use_llm_eval and config.judge else []
        budget = Budget(config.budget, {s.spec: price_of(s, config.prices) or {"input": 0.0, "output": 0.0}
                                        for s in [*config.models, *judge]})
    return Engine(services, config.generation, retries=config.n_retries, timeout=config.timeout,
                  cache=ResponseCache() if use_cache else None, journal=journal,
                  limits={k: v for k, v in limits.items() if v},
                  system_prompts={m.spec: m.system_prompt for m in config.models if m.system_prompt}, budget=budget)


def pending(jobs: Iterator[Job], done: Done) -> Iterator[Job]:
    """The jobs not yet answered (an answer recorded as an error is asked again)."""
    return (j for j in jobs if answer_key(j.model, j.key, j.repetition) not in done)


async def run_jobs(plan: JobSource, engine: Engine, done: Done, options: Options, run_dir: Path) -> Stats:
    """Every suite's pending jobs for every model, side by side, each model under its concurrency."""

    def jobs_of(spec: str) -> Iterator[Job]:
        return pending(chain.from_iterable(s.jobs(spec) for s in plan.suites), done)

    specs = [m.spec for m in plan.models]
    if options.batch:
        from langbite.execute.batch import run_in_batches

        specs = await run_in_batches(engine, run_dir, {spec: jobs_of(spec) for spec in specs}, options.batch_poll)
        done = done | {k for k, a in read_journal(run_dir).items() if not a.error}
    jobs = {spec: jobs_of(spec) for spec in specs}
    concurrency = {m.spec: options.concurrency or m.concurrency or plan.config.concurrency for m in plan.models}
    total = sum(plan.n_calls(spec) for spec in specs) - sum(1 for k in done if k[0] in specs)
    return await engine.run(jobs, concurrency, max(total, 0), progress=options.progress)
