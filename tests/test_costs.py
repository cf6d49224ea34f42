"""The cost estimate `langbite plan` prints: tokens from the planned prompts, dollars where a price is known."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from conftest import REPO, write
from langbite.cli import main
from langbite.costs import estimate, price_of, shipped_prices
from langbite.model import ModelSpec
from langbite.runner import RunOptions, prepare

QUICKSTART = REPO / "requirements_models" / "quickstart.json"


def test_tokens_and_dollars_follow_the_plan() -> None:
    plan = prepare(QUICKSTART, RunOptions(models=["openai:gpt-4o-mini"]))
    [e] = estimate(plan)
    prompts = [i.prompt for item in plan.items for i in item.instances]
    assert e.calls == len(prompts) == plan.n_calls
    assert e.input_tokens == sum(math.ceil(len(p) / 4) for p in prompts)
    assert e.output_tokens == len(prompts) * plan.config.generation.max_tokens
    price = shipped_prices()["openai:gpt-4o-mini"]
    assert e.dollars == pytest.approx((e.input_tokens * price["input"] + e.output_tokens * price["output"]) / 1e6)


def test_prices_in_the_model_override_the_table_and_unknown_models_say_so(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture) -> None:
    doc = json.loads(QUICKSTART.read_text(encoding="utf-8"))
    doc["prices"] = {"openai:my-finetune": {"input": 1000000.0, "output": 0.0}}
    model = write(tmp_path / "m.json", json.dumps(doc))
    plan = prepare(model, RunOptions(models=["openai:my-finetune", "anthropic:some-new-model", "local:smollm2"]))
    mine, unknown, local = estimate(plan, plan.config.prices)
    assert mine.dollars == mine.input_tokens  # $1M per million tokens: one dollar per input token
    assert unknown.dollars is None and local.dollars == 0.0
    assert main(["plan", str(model), "--llm", "anthropic:some-new-model"]) == 0
    assert "price unknown" in capsys.readouterr().out


def test_a_system_prompt_is_paid_on_every_call(tmp_path: Path) -> None:
    plan = prepare(QUICKSTART, RunOptions(models=["openai:gpt-4o-mini"]))
    with_prompt = prepare(QUICKSTART, RunOptions(models=["openai:gpt-4o-mini"],
                                                 system_prompts=[("p", "x" * 400)]))
    assert estimate(with_prompt)[0].input_tokens == estimate(plan)[0].input_tokens + 100 * plan.n_calls


def test_variants_are_priced_as_their_model() -> None:
    assert price_of(ModelSpec("openai:gpt-4o-mini#strict")) == shipped_prices()["openai:gpt-4o-mini"]
