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

import math
from dataclasses import dataclass

from langbite.execute.budget import CHARS_PER_TOKEN, price_of, tokens
from langbite.plan import Plan

__all__ = ["CHARS_PER_TOKEN", "Estimate", "estimate"]

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
