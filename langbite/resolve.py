"""The requirements model as it will run: the command line's overrides applied, every model resolved.

What the command line (or the Python API) says wins over the requirements model:
models (``--llm``), base URL, judge, budget and system prompts. Every model spec
is resolved here (provider, LangBiTe key, factory), and everything that makes a
run impossible (a budget without prices, a judge without a model, a budget in
batch mode) is an :class:`~langbite.errors.InputErrors` before any call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from langbite.errors import InputErrors, every
from langbite.execute.budget import price_of
from langbite.execute.providers import DEFAULT_MODEL, resolve_spec
from langbite.model import ModelSpec, RequirementsModel
from langbite.selection import Selection
from langbite.suites import Plan


@dataclass
class RunOptions:
    """Command-line (or API) overrides of the requirements model."""

    models: Sequence[str] = ()
    templates: Sequence[Path] = ()
    base_url: str | None = None
    concurrency: int | None = None
    judge: str | None = None
    use_cache: bool = True
    progress: bool = True
    system_prompts: Sequence[tuple[str, str]] = ()  # (name, text): one applies to every model; several compare
    selection: Selection = Selection()  # -k, --ids, --limit
    budget: float | None = None  # --budget USD: overrides the model's 'budget'
    batch: bool = False  # --batch: OpenAI-compatible models through the provider's batch API
    batch_poll: float = 30.0  # seconds between looks at a running batch
    executor: str = "local"  # "ray": the models run on Ray actors (langbite.execute.ray_executor)
    ray_address: str | None = None  # a running Ray cluster ("auto", "ray://host:10001"); None starts a local one
    ray_actors: int = 2  # actors per model
    data: str | None = None  # probe data folder (--data)
    force: bool = False  # --force: write into a folder that holds files langbite did not write
    yes: bool = False  # --yes: run a plan larger than CONFIRM_ABOVE calls
    skip_invalid_templates: bool = False  # --skip-invalid-templates: run without the library rows that have problems


def with_system_prompts(specs: list[ModelSpec], config: RequirementsModel,
                        options: RunOptions) -> list[ModelSpec]:
    """Each model with its system prompt; under several named prompts, one ``model#name`` per prompt.

    The command line's prompts replace the model's. One prompt applies to every model that has
    none of its own; named prompts (``system_prompts``, or several ``--system-prompt`` files)
    make variants that are journaled, evaluated and reported like models, so compare them.
    """
    named = list(options.system_prompts)
    if len(named) == 1:
        return [dataclasses.replace(s, system_prompt=named[0][1]) for s in specs]
    if not named:
        named = list(config.system_prompts.items())
    out = []
    for s in specs:
        if named and not s.variant:
            out += [dataclasses.replace(s, spec=f"{s.spec}#{name}", system_prompt=text) for name, text in named]
        else:
            out.append(dataclasses.replace(s, system_prompt=s.system_prompt or config.system_prompt or None))
    return out


def model_specs(config: RequirementsModel, options: RunOptions) -> tuple[ModelSpec, ...]:
    """The models of the run, resolved; every unknown or unusable spec reported at once."""
    specs = [ModelSpec(m) for m in options.models] or list(config.models) or [ModelSpec(DEFAULT_MODEL)]
    specs = with_system_prompts(specs, config, options)
    if options.base_url:
        specs = [dataclasses.replace(s, base_url=options.base_url) for s in specs]
    return tuple(dict.fromkeys(every(specs, resolve_spec)))


def judge_spec(config: RequirementsModel) -> str | None:
    """The judge's resolved spec, when the run reads answers with one."""
    return resolve_spec(ModelSpec(config.judge)).spec if config.use_llm_eval and config.judge else None


def check_prices(config: RequirementsModel) -> None:
    """A budget is enforced with prices: every model (and the judge) needs one, before any call."""
    specs = list(config.models) + ([resolve_spec(ModelSpec(config.judge))] if config.use_llm_eval and config.judge
                                   else [])
    missing = [s.spec for s in specs if price_of(s, config.prices) is None]
    if missing:
        raise InputErrors.single(config.path or "--budget", f"a budget needs a price for {', '.join(missing)}: give "
                                 "it under 'prices' in the requirements model (US dollars per million tokens)")


def resolve(config: RequirementsModel, options: RunOptions) -> RequirementsModel:
    """The requirements model with the command line's overrides applied and its models resolved."""
    if options.judge:
        config = dataclasses.replace(config, judge=options.judge)
    if config.use_llm_eval and not config.judge:
        raise InputErrors.single(config.path or "<requirements>", "use_llm_eval needs a judge model: set 'judge' "
                                 "in the requirements model or pass --judge SPEC (a model stronger than the one tested)")
    config = dataclasses.replace(config, models=model_specs(config, options))
    if options.budget is not None:
        config = dataclasses.replace(config, budget=options.budget)
    if config.budget is not None:
        if options.batch:
            raise InputErrors.single("--batch", "a budget cannot stop a batch once it is submitted: run with a "
                                     "budget interactively, or in batch mode without one (`langbite plan` "
                                     "estimates the cost first)")
        check_prices(config)
    return config


#: A plan of more calls than this runs only with consent (``--yes``, or ``max_calls`` in the model): a community
#: list of sixty names turns ten three-markup templates into two million calls, and nothing else would say so.
CONFIRM_ABOVE = 100_000


def check_size(plan: Plan, options: RunOptions) -> None:
    """Refuse, before any call, a plan past the model's ``max_calls`` or, without consent, past CONFIRM_ABOVE."""
    calls = plan.n_calls()
    limit = plan.config.max_calls
    where = plan.config.path or "the requirements model"
    if limit is not None and calls > limit:
        raise InputErrors.single(where, f"the plan makes {calls:,} calls, more than max_calls ({limit:,}); narrow it "
                                 "(communities, n_templates, -k, --limit) or raise max_calls; see langbite plan")
    if limit is None and calls > CONFIRM_ABOVE and not options.yes:
        raise InputErrors.single(where, f"the plan makes {calls:,} calls (more than {CONFIRM_ABOVE:,}); nothing was "
                                 "sent. Check it with langbite plan, then run it with --yes (or set max_calls "
                                 "in the requirements model)")
