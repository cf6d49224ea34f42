"""Run prompts against models: concurrent, retried, cached and journaled.

Template instances and probe attempts are the same thing here: a :class:`Job`
(model, key, prompt, repetition). Each model gets its own pool of worker
coroutines (its concurrency limit) pulling jobs from a shared iterator, so
memory stays flat however large the plan. Transient faults (timeouts,
connection errors, malformed replies, 408, 409, 429 and 5xx) are retried by
tenacity with exponential backoff and jitter, honouring ``Retry-After``;
after the last retry the job is recorded as an error with its reason and the
run goes on. Every answer is written to the journal as it arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import email.utils
import gc
import logging
import os
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langbite.execute.budget import Budget, BudgetReached
from langbite.execute.cache import ResponseCache, cache_key
from langbite.execute.journal import Journal
from langbite.execute.limits import AdaptiveConcurrency, Limits
from langbite.execute.services import Generation, InvalidReply, ChatService, html_page
from langbite.model import DEFAULTS, Answer, GenerationParams
from langbite.secrets import redact_text, redact_url

if TYPE_CHECKING:
    from tenacity import RetryCallState

log = logging.getLogger(__name__)
MAX_WAIT = 120.0  # the longest a Retry-After may make a job wait


@dataclass(frozen=True)
class Job:
    """One prompt for one model: a template instance or a probe attempt, keyed for the journal."""

    model: str
    key: str
    prompt: str
    repetition: int


#: Replies that no retry and no other prompt can mend: a wrong key, no access, a model that does not exist.
FATAL = {401: "the key was refused", 403: "access denied", 404: "no such model or endpoint"}


@dataclass
class Stats:
    calls: int = 0
    cache_hits: int = 0
    errors: int = 0
    retries: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    stopped: dict[str, str] = dataclasses.field(default_factory=dict)  # model → why its calls stopped early

    def line(self) -> str:
        return (f"{self.calls} calls, {self.cache_hits} cache hits, {self.errors} failed, "
                f"{self.retries} retries, tokens in/out {self.tokens_in}/{self.tokens_out}, "
                f"execution {self.seconds:.1f}s")


def _loaded(classes: tuple[tuple[str, str], ...]) -> tuple[type[BaseException], ...]:
    """Exception classes of the HTTP stacks that are loaded (never imported here)."""
    found: list[type[BaseException]] = []
    for module, name in classes:
        cls = getattr(sys.modules.get(module), name, None)
        if isinstance(cls, type) and issubclass(cls, BaseException):
            found.append(cls)
    return tuple(found)


def _transport_errors() -> tuple[type[BaseException], ...]:
    return _loaded((("httpx", "TransportError"), ("httpx2", "TransportError"), ("openai", "APIConnectionError"),
                    ("aiohttp", "ClientConnectionError"), ("anthropic", "APIConnectionError")))


def _timeout_errors() -> tuple[type[BaseException], ...]:
    """A client's own timeout (the SDK's or the HTTP stack's) reads like the engine's."""
    return (TimeoutError, *_loaded((("httpx", "TimeoutException"), ("httpx2", "TimeoutException"),
                                    ("openai", "APITimeoutError"), ("anthropic", "APITimeoutError"))))


def status_code(exc: BaseException) -> int | None:
    """The HTTP status an SDK error carries (``status_code``, its response's, or Replicate's ``status``)."""
    for status in (getattr(exc, "status_code", None), getattr(getattr(exc, "response", None), "status_code", None),
                   getattr(exc, "status", None)):
        if isinstance(status, int) and not isinstance(status, bool) and 100 <= status < 600:
            return status
    return None


def is_transient(exc: BaseException) -> bool:
    """Faults worth retrying: timeouts, connection errors, malformed replies, 408, 409, 429 and 5xx."""
    if isinstance(exc, (TimeoutError, ConnectionError, InvalidReply)):
        return True
    status = status_code(exc)
    if status is not None:
        return status in (408, 409, 429) or status >= 500
    return isinstance(exc, _transport_errors())


def retry_after(exc: BaseException | None) -> float | None:
    """Seconds asked for by a ``Retry-After`` header, if the error carries one."""
    headers: Any = getattr(getattr(exc, "response", None), "headers", None)
    value = headers.get("retry-after") if headers is not None else None
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:  # an HTTP date; anything else ("soon") is no instruction: the usual backoff applies
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(when.timestamp() - time.time(), 0.0) if when else None


class _Wait:
    """Exponential backoff with jitter (up to 0.5 s, 1 s, 2 s … 30 s), unless the server said how long."""

    def __init__(self) -> None:
        from tenacity import wait_random_exponential

        self.backoff = wait_random_exponential(multiplier=0.5, max=30.0)

    def __call__(self, state: RetryCallState) -> float:
        asked = retry_after(state.outcome.exception() if state.outcome else None)
        return min(asked, MAX_WAIT) if asked is not None else float(self.backoff(state))


def _html_page(exc: BaseException) -> str | None:
    """An HTML error page (a proxy's 502, a login page) that came back instead of JSON, named by its title."""
    response = getattr(exc, "response", None)
    try:
        body = str(getattr(response, "text", "") or "")
    except Exception:  # a streamed body that was never read
        return None
    return html_page(body)


def describe(exc: BaseException, timeout: float) -> str:
    """A readable reason for a failed job (never a bare class name, never a secret)."""
    if isinstance(exc, _timeout_errors()):
        return f"timed out after {timeout:g} s"
    status = status_code(exc)
    text = " ".join(str(exc).split())
    if isinstance(exc, InvalidReply):
        reason = text or "the server's reply is not an answer"
    elif status is not None:
        page = _html_page(exc)
        if page:
            reason = f"HTTP {status}: the server sent {page} instead of an answer"
        else:
            reason = f"HTTP {status}: {text}" if text and not text.startswith(str(status)) else text or f"HTTP {status}"
    else:
        reason = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
        proxy = _proxy_of(exc) if isinstance(exc, (ConnectionError, *_transport_errors())) else None
        if proxy:
            reason += f" (through the proxy {proxy[1]} set in {proxy[0]}: check that it is up, or unset it)"
    return redact_text(reason)[:500]


def _proxy_of(exc: BaseException) -> tuple[str, str] | None:
    """The environment variable and proxy URL a failed connection went through, when one applies (redacted)."""
    import urllib.request

    url = str(getattr(getattr(exc, "request", None), "url", "") or "")
    scheme, host = (url.split("://", 1)[0].lower(), url.split("://", 1)[1].split("/", 1)[0]) if "://" in url \
        else ("https", "")
    bypass = getattr(urllib.request, "proxy_bypass_environment", None)  # NO_PROXY, as the HTTP stacks read it
    if host and bypass is not None and bypass(host.rsplit(":", 1)[0]):
        return None
    for name in (f"{scheme.upper()}_PROXY", f"{scheme}_proxy", "ALL_PROXY", "all_proxy"):
        value = os.environ.get(name)
        if value:
            return name, redact_url(value)
    return None


class Engine:
    """Executes jobs; also answers single prompts for the judge LLM."""

    def __init__(self, services: dict[str, ChatService], params: GenerationParams, *, retries: int = 3,
                 timeout: float = DEFAULTS["timeout"], cache: ResponseCache | None = None, journal: Journal | None = None,
                 limits: dict[str, Limits] | None = None, system_prompts: dict[str, str] | None = None,
                 budget: Budget | None = None) -> None:
        self.services = services
        self.params = params
        self.system_prompts = system_prompts or {}  # model spec → its system prompt
        self.budget = budget  # dollars the run may spend; None: no limit
        self.budget_reached = False
        self.retries = retries
        self.timeout = timeout
        self.cache = cache
        self.journal = journal
        self.limits = limits or {}
        self.adaptive: dict[str, AdaptiveConcurrency] = {}  # per model, set by run(): in-flight level vs 429s
        self.stats = Stats()

    def _count_retry(self, state: RetryCallState) -> None:
        self.stats.retries += 1
        log.debug("retry %d after %s", state.attempt_number, state.outcome.exception() if state.outcome else "")

    async def _call(self, spec: str, service: ChatService, prompt: str, params: GenerationParams) -> Generation:
        from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt  # only when a call is made

        limits = self.limits.get(spec)
        retrying = AsyncRetrying(stop=stop_after_attempt(self.retries + 1), wait=_Wait(),
                                 retry=retry_if_exception(is_transient), reraise=True,
                                 before_sleep=self._count_retry)
        adaptive = self.adaptive.get(spec)
        async for attempt in retrying:
            with attempt:
                if limits is not None:
                    await limits.acquire(prompt, params.max_tokens)
                self.stats.calls += 1
                async with adaptive or contextlib.nullcontext():
                    try:
                        async with asyncio.timeout(self.timeout):  # unlike wait_for, no extra task per call
                            generation = await service.agenerate(prompt, params)
                    except Exception as exc:
                        if adaptive is not None and status_code(exc) == 429:
                            adaptive.throttled()
                        elif adaptive is not None:
                            adaptive.answered()
                        raise
                    if adaptive is not None:
                        adaptive.answered()
                    return generation
        raise AssertionError("unreachable")  # AsyncRetrying either returns or re-raises

    def params_for(self, spec: str, repetition: int) -> GenerationParams:
        """What is sent with a prompt to ``spec`` for ``repetition``: its seed and system prompt included."""
        params = self.params.for_repetition(repetition)
        if spec in self.system_prompts:
            params = dataclasses.replace(params, system_prompt=self.system_prompts[spec])
        return params

    def cache_key_for(self, spec: str, prompt: str, repetition: int) -> str:
        """The response cache's key of ``prompt`` sent to ``spec`` for ``repetition``."""
        service = self.services[spec]
        return cache_key(service.provider, service.model, service.identity, prompt, self.params_for(spec, repetition),
                         repetition)

    def count_tokens(self, generation: Generation) -> None:
        """Add a fresh answer's tokens to the run's counts (a cached answer costs none)."""
        self.stats.tokens_in += generation.tokens_in
        self.stats.tokens_out += generation.tokens_out

    def record(self, job: Job, generation: Generation | None, error: str = "", cached: bool = False,
               seconds: float = 0.0) -> None:
        """Journal what ``job`` got: its answer, or the error that stands in its place."""
        if self.journal is None:
            return
        self.journal.write(Answer(
            model=job.model, key=job.key, repetition=job.repetition,
            text=generation.text if generation else "", error=error, cached=cached,
            tokens_in=generation.tokens_in if generation else 0,
            tokens_out=generation.tokens_out if generation else 0, seconds=round(seconds, 4)))

    async def complete(self, spec: str, prompt: str, repetition: int = 0) -> tuple[Generation | None, str, bool]:
        """(generation, error, cached) for one prompt; provider faults become an error string."""
        service = self.services[spec]
        params = self.params_for(spec, repetition)
        key = ""
        if self.cache is not None:
            key = self.cache_key_for(spec, prompt, repetition)
            hit = self.cache.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                return hit, "", True
        reserved = self.budget.reserve(spec, prompt, params.max_tokens) if self.budget is not None else 0.0
        try:
            generation = await self._call(spec, service, prompt, params)
        except Exception as exc:  # the provider boundary: any fault of the model's side is data
            self.stats.errors += 1
            status = status_code(exc)
            if status in FATAL:  # every other prompt would get the same answer: stop asking this model
                self.stats.stopped.setdefault(spec, f"HTTP {status} ({FATAL[status]}): {describe(exc, self.timeout)}")
            elif getattr(exc, "fatal", False):  # a configuration fault (an answer path the reply lacks)
                self.stats.stopped.setdefault(spec, f"reply: {describe(exc, self.timeout)}")
            if self.budget is not None:
                self.budget.settle(spec, reserved, prompt, None)
            return None, describe(exc, self.timeout), False
        if self.budget is not None:
            self.budget.settle(spec, reserved, prompt, generation.text, generation.tokens_in, generation.tokens_out)
        self.count_tokens(generation)
        if self.cache is not None:
            self.cache.put(key, generation)
        return generation, "", False

    async def _worker(self, jobs: Iterator[Job], bar: Any) -> None:
        for job in jobs:
            if job.model in self.stats.stopped:
                continue  # not sent, not journaled: a resume with the right key or model sends it
            start = time.perf_counter()
            try:
                generation, error, cached = await self.complete(job.model, job.prompt, job.repetition)
            except BudgetReached:  # this job stays unanswered (resumable); the other workers stop at theirs
                self.budget_reached = True
                return
            self.record(job, generation, error, cached, time.perf_counter() - start)
            if bar is not None:
                bar.update(1)
                adaptive = self.adaptive.get(job.model)
                if error or (adaptive is not None and adaptive.level < adaptive.ceiling):
                    bar.set_postfix(failed=self.stats.errors, cached=self.stats.cache_hits,
                                    **({"in_flight": f"{adaptive.level}/{adaptive.ceiling}"} if adaptive else {}),
                                    refresh=False)

    async def run(self, jobs: Mapping[str, Iterable[Job]], concurrency: dict[str, int], total: int,
                  progress: bool = True) -> Stats:
        """Run every model's jobs side by side, each under its concurrency limit."""
        started = time.perf_counter()
        bar = _progress_bar(total) if progress and total else None
        # what exists now (plan, library, lexicons, imported modules) lives through the run: keep it out of
        # the collector's full passes, which otherwise rescan it again and again while answers arrive
        gc.freeze()
        try:
            tasks = []
            for spec, model_jobs in jobs.items():
                shared = iter(model_jobs)
                limit = concurrency.get(spec, 1)
                cap = self.services[spec].max_concurrency
                n = max(1, min(limit, cap) if cap else limit)
                if n > 1:  # one request at a time has nothing to adapt
                    self.adaptive[spec] = AdaptiveConcurrency(n)
                tasks += [asyncio.create_task(self._worker(shared, bar)) for _ in range(n)]
            await asyncio.gather(*tasks)
        finally:
            gc.unfreeze()
            if bar is not None:
                bar.close()
            if self.cache is not None:
                self.cache.flush()
            self.stats.seconds += time.perf_counter() - started
        return self.stats


def _progress_bar(total: int) -> Any:
    """A progress bar on a terminal only: redirected logs get no carriage-return noise."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="call", desc="langbite", dynamic_ncols=True, leave=False)
