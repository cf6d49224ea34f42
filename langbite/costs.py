"""What a run will cost before it starts: tokens per model and, where a price is known, dollars.

Input tokens are estimated from the prompts as one token per four characters
(the rule of thumb OpenAI documents for English; Spanish and Catalan run a
little higher), since an exact count needs each provider's tokenizer, and
several of them download their vocabularies on first use. Output tokens are
the most the run allows, ``max_tokens`` per call: an upper bound. Prices are
US dollars per million tokens from ``execute/prices.json`` (the providers'
published prices, dated there), overridden by the requirements model's
``prices``. Local and fake models cost nothing; a model without a price is
shown with its tokens and "price unknown".
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from langbite.model import ModelSpec
from langbite.plan import Plan

CHARS_PER_TOKEN = 4


@cache
def shipped_prices() -> dict[str, dict[str, float]]:
    raw = json.loads((Path(__file__).parent / "execute" / "prices.json").read_text(encoding="utf-8"))
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
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class Estimate:
    model: str
    calls: int
    input_tokens: int
    output_tokens: int  # at most
    dollars: float | None  # None: no price known

    def line(self) -> str:
        cost = f"${self.dollars:,.2f} at most" if self.dollars is not None else "price unknown (give 'prices')"
        return (f"{self.model}: about {self.input_tokens:,} input tokens, at most {self.output_tokens:,} output "
                f"tokens: {cost}")


def estimate(plan: Plan, overrides: dict[str, dict[str, float]] | None = None,
             batch: bool = False) -> list[Estimate]:
    """One estimate per model of the plan (template calls, and probe calls at the templates' mean prompt size);
    with ``batch``, at the batch prices (``batch_input``/``batch_output``) where the table gives them."""
    reps = plan.config.n_repetitions
    prompt_tokens = sum(tokens(i.prompt) for item in plan.items for i in item.instances) * reps
    template_calls = plan.n_instances * reps
    mean = prompt_tokens / template_calls if template_calls else 64
    probe_calls = plan.probe_attempts
    out: list[Estimate] = []
    for spec in plan.models:
        calls = template_calls + probe_calls
        tokens_in = prompt_tokens + math.ceil(mean * probe_calls)
        if spec.system_prompt:
            tokens_in += tokens(spec.system_prompt) * calls
        tokens_out = calls * plan.config.generation.max_tokens
        price = price_of(spec, overrides)
        if price is not None and batch and "batch_input" in price and "batch_output" in price:
            price = {"input": price["batch_input"], "output": price["batch_output"]}
        dollars = None if price is None else (tokens_in * price["input"] + tokens_out * price["output"]) / 1e6
        out.append(Estimate(spec.spec, calls, tokens_in, tokens_out, dollars))
    return out


def as_rows(estimates: list[Estimate]) -> list[dict[str, Any]]:
    return [{"model": e.model, "calls": e.calls, "input_tokens": e.input_tokens, "output_tokens": e.output_tokens,
             "dollars": e.dollars} for e in estimates]


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
