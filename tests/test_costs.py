"""The cost estimate `langbite plan` prints: tokens from the planned prompts, dollars where a price is known."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from conftest import REPO, write
from langbite.cli import main
from langbite.costs import estimate
from langbite.execute.budget import price_of, shipped_prices
from langbite.model import ModelSpec
from langbite.runner import RunOptions, prepare
from langbite.suites.templates import template_suite

QUICKSTART = REPO / "requirements_models" / "quickstart.json"


def test_tokens_and_dollars_follow_the_plan() -> None:
    plan = prepare(QUICKSTART, RunOptions(models=["openai:gpt-4o-mini"]))
    [e] = estimate(plan)
    prompts = [i.prompt for item in template_suite(plan).items for i in item.instances]
    assert e.calls == len(prompts) == plan.n_calls()
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
    assert estimate(with_prompt)[0].input_tokens == estimate(plan)[0].input_tokens + 100 * plan.n_calls()


def test_variants_are_priced_as_their_model() -> None:
    assert price_of(ModelSpec("openai:gpt-4o-mini#strict")) == shipped_prices()["openai:gpt-4o-mini"]


def _priced_model(tmp_path: Path, base_url: str, **extra: object) -> Path:
    doc = json.loads(QUICKSTART.read_text(encoding="utf-8"))
    doc["models"] = [{"model": "openai:mock", "base_url": base_url}]
    doc["prices"] = {"openai:mock": {"input": 1000.0, "output": 1000.0}}  # $0.001 per token: budgets bite fast
    doc.update(extra)
    return write(tmp_path / "m.json", json.dumps(doc))


def test_a_budget_stops_the_run_before_it_is_passed_and_the_folder_resumes(
        tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    sys.path.insert(0, str(REPO / "bench"))
    from mock_openai import MockConfig, MockOpenAI

    monkeypatch.setenv("LANGBITE_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    with MockOpenAI(MockConfig()) as server:
        model = _priced_model(tmp_path, server.base_url)
        plan = prepare(model)
        [full] = estimate(plan, plan.config.prices)
        budget = full.input_tokens * 1000.0 / 1e6 / 3  # a third of what the prompts alone cost
        assert main(["run", str(model), "--out", str(out), "--budget", f"{budget}", "-q"]) == 5
        err = capsys.readouterr().err
        assert "stopped at the budget" in err and f"--budget {budget * 2:g}" in err
        answered = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines() if line.strip()]
        assert 0 < len(answered) < plan.n_calls() == full.calls
        spent = sum((a["tokens_in"] + a["tokens_out"]) * 1000.0 / 1e6 for a in answered)
        assert spent <= budget
        made = server.stats.requests
        assert made == len(answered)  # no call was sent that the budget could not cover
        # resuming with room for the rest completes the run without asking again what was answered
        assert main(["run", str(model), "--out", str(out), "--budget", f"{full.dollars * 2}", "-q"]) in (0, 1, 3)
        assert server.stats.requests == plan.n_calls()


def test_a_budget_needs_a_price_for_every_model(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["run", str(QUICKSTART), "--llm", "openai:unpriced-model", "--budget", "1", "--out",
                 str(tmp_path / "r")]) == 2
    assert "a budget needs a price for openai:unpriced-model" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["run", str(QUICKSTART), "--budget=-3", "--out", str(tmp_path / "r")])
    assert exit_.value.code == 2 and "must be more than 0" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_plan_with_batch_estimates_at_the_batch_prices(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from conftest import REPO
    from langbite.cli import main
    from langbite.costs import estimate
    from langbite.runner import RunOptions, prepare

    model = REPO / "requirements_models" / "quickstart.json"
    plan = prepare(model, RunOptions(models=["openai:gpt-4o-mini"]))
    [interactive] = estimate(plan)
    [batch] = estimate(plan, batch=True)
    assert interactive.dollars and batch.dollars == pytest.approx(interactive.dollars / 2)
    assert main(["plan", str(model), "--llm", "openai:gpt-4o-mini", "--batch"]) == 0
    assert f"${batch.dollars:,.2f} at most" in capsys.readouterr().out
