"""Prices and the run's budget: what a call may cost, and stopping before the budget is passed.

Prices are US dollars per million tokens from ``prices.json`` beside this module (the providers'
published prices, dated there), overridden by the requirements model's ``prices``. Tokens are
estimated as one per four characters where a provider reports none (see :mod:`langbite.costs`).
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path

from langbite.model import ModelSpec

CHARS_PER_TOKEN = 4


@cache
def shipped_prices() -> dict[str, dict[str, float]]:
    raw = json.loads((Path(__file__).parent / "prices.json").read_text(encoding="utf-8"))
    return {k: dict(v) for k, v in raw["prices"].items()}


def price_of(spec: ModelSpec, overrides: dict[str, dict[str, float]] | None = None) -> dict[str, float] | None:
    """The price entry of a model: the model's own override, then the shipped table (local models are free)."""
    table = {**shipped_prices(), **(overrides or {})}
    base = spec.base_spec
    if base in table:
        return table[base]
    if spec.provider in ("local", "fake", "scripted"):
        return {"input": 0.0, "output": 0.0}
    return table.get(spec.provider)


def tokens(text: str) -> int:
    """Estimated tokens of a text: one per four characters."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


class BudgetReached(Exception):
    """The next call could take the run past its budget: the run stops here, resumable."""

    def __init__(self, spent: float, limit: float) -> None:
        super().__init__(f"budget reached: ${spent:,.4f} spent of ${limit:,.2f}")
        self.spent, self.limit = spent, limit


class Budget:
    """Dollars a run may spend: each call reserves its worst case before it is sent.

    The worst case is the prompt's estimated tokens plus ``max_tokens`` of output at the model's
    price; when the answer comes, the reservation is replaced by what the provider reported
    (or the estimate of the prompt and the answer when it reports nothing). A failed call keeps
    its worst case, since some providers bill a call that timed out. So the total never passes
    the limit: a call that could is not sent.
    """

    def __init__(self, limit: float, prices: dict[str, dict[str, float]]) -> None:
        self.limit = limit
        self.prices = prices  # model spec → price per million tokens
        self.spent = 0.0
        self.reserved = 0.0

    def _cost(self, spec: str, tokens_in: int, tokens_out: int) -> float:
        price = self.prices[spec]
        return (tokens_in * price["input"] + tokens_out * price["output"]) / 1e6

    def reserve(self, spec: str, prompt: str, max_tokens: int) -> float:
        worst = self._cost(spec, tokens(prompt), max_tokens)
        if self.spent + self.reserved + worst > self.limit:
            raise BudgetReached(self.spent, self.limit)
        self.reserved += worst
        return worst

    def settle(self, spec: str, reserved: float, prompt: str, answer: str | None, tokens_in: int = 0,
               tokens_out: int = 0) -> None:
        self.reserved -= reserved
        if answer is None:
            self.spent += reserved
            return
        self.spent += self._cost(spec, tokens_in or tokens(prompt), tokens_out or tokens(answer))

    @property
    def remaining(self) -> float:
        return max(0.0, self.limit - self.spent)
