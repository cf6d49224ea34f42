"""Requests and tokens per minute, kept under a provider's quota before it has to answer 429.

Both limits are leaky buckets from aiolimiter, sized to one second's worth so
that a run starts smoothly instead of bursting a minute's quota at once. A
call's tokens are estimated as prompt characters / 4 + max tokens.
"""

from __future__ import annotations

from aiolimiter import AsyncLimiter


def estimated_tokens(prompt: str, max_tokens: int) -> float:
    return len(prompt) / 4 + max_tokens


def _per_minute(rate: float) -> AsyncLimiter:
    """A limiter allowing ``rate`` units a minute, one second's worth (at least one unit) at a time."""
    if rate >= 60:
        return AsyncLimiter(rate / 60.0, 1.0)
    return AsyncLimiter(1.0, 60.0 / rate)


class Limits:
    """The rate limits of one model."""

    def __init__(self, requests_per_minute: float | None = None, tokens_per_minute: float | None = None) -> None:
        self.requests = _per_minute(requests_per_minute) if requests_per_minute else None
        self.tokens = _per_minute(tokens_per_minute) if tokens_per_minute else None

    def __bool__(self) -> bool:
        return self.requests is not None or self.tokens is not None

    async def acquire(self, prompt: str, max_tokens: int) -> None:
        if self.requests is not None:
            await self.requests.acquire(1)
        if self.tokens is not None:
            await self.tokens.acquire(min(estimated_tokens(prompt, max_tokens), self.tokens.max_rate))


class AdaptiveConcurrency:
    """How many requests a model may have in flight, adapted to its 429s (additive increase, halving).

    The run starts at the configured concurrency. A 429 ("too many requests") halves the level at
    once, so that a provider's rate limit is met by backing off rather than by retrying harder;
    every ``level`` answers in a row without one add a request in flight again, up to the configured
    ceiling. ``history`` keeps every change of level, for the progress bar and for tests.
    """

    def __init__(self, ceiling: int) -> None:
        import asyncio

        self.ceiling = max(1, ceiling)
        self.level = self.ceiling
        self.active = 0
        self._ok = 0
        self._changed = asyncio.Condition()
        self.history: list[int] = [self.level]

    async def __aenter__(self) -> None:
        async with self._changed:
            await self._changed.wait_for(lambda: self.active < self.level)
            self.active += 1

    async def __aexit__(self, *exc: object) -> None:
        async with self._changed:
            self.active -= 1
            self._changed.notify_all()

    def throttled(self) -> None:
        """A 429: halve the level."""
        self._ok = 0
        if self.level > 1:
            self.level = max(1, self.level // 2)
            self.history.append(self.level)

    def answered(self) -> None:
        """An answer (or a fault that is not a rate limit): climb back one step per ``level`` of them."""
        self._ok += 1
        if self.level < self.ceiling and self._ok >= self.level:
            self._ok = 0
            self.level += 1
            self.history.append(self.level)
