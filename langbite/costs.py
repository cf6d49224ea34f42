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

from dataclasses import dataclass

from langbite.execute.budget import CHARS_PER_TOKEN, price_of, tokens
from langbite.suites import Plan, Suite

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
    """One estimate per model of the plan, over every suite's calls; with ``batch``, at the batch prices
    (``batch_input``/``batch_output``) where the table gives them."""
    out: list[Estimate] = []
    if not plan.models:
        return out
    first = plan.models[0].spec  # every model gets the same prompts
    prompt_tokens = sum(_prompt_tokens(suite, first) for suite in plan.suites)
    for spec in plan.models:
        calls = plan.n_calls(spec.spec)
        tokens_in = prompt_tokens + (tokens(spec.system_prompt) * calls if spec.system_prompt else 0)
        tokens_out = calls * plan.config.generation.max_tokens
        price = price_of(spec, overrides)
        if price is not None and batch and "batch_input" in price and "batch_output" in price:
            price = {"input": price["batch_input"], "output": price["batch_output"]}
        dollars = None if price is None else (tokens_in * price["input"] + tokens_out * price["output"]) / 1e6
        out.append(Estimate(spec.spec, calls, tokens_in, tokens_out, dollars))
    return out


#: Up to this many calls per suite, input tokens are counted prompt by prompt; past it they are estimated
#: from a sample, so that ``plan`` of a million-call run does not build a million prompts.
EXACT_UP_TO = 50_000


def _prompt_tokens(suite: Suite, model: str) -> int:
    if suite.n_calls(model) <= EXACT_UP_TO:
        return sum(tokens(job.prompt) for job in suite.jobs(model))
    sampled = getattr(suite, "sampled_prompts", None)  # a suite that can sample without building every prompt
    if sampled is None:
        return sum(tokens(job.prompt) for job in suite.jobs(model))
    total: float = sum(tokens(prompt) * weight for prompt, weight in sampled(model, EXACT_UP_TO // 10))
    return round(total)
