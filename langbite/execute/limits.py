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
