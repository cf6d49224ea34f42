"""One run, end to end: load → plan → execute → evaluate → report.

The CLI and the Python API (:class:`langbite.LangBiTe`) both call these
functions. Everything that can be wrong with the input is found in
:func:`prepare`, before any model is called. Template instances and probe
attempts are jobs of one engine, written to one journal, under one set of
generation parameters.

A run folder holds ``config.json`` (the requirements model as run),
``templates/`` (a snapshot of the library files used), ``answers.jsonl`` (the
journal), ``judge.jsonl`` (judge replies), the CSV reports and ``run.json``.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from langbite.aio import run_sync
from langbite.errors import InputError, InputErrors
from langbite.evaluate.evaluation import Answers, evaluate_item
from langbite.evaluate.memo import ReadingMemo
from langbite.evaluate.judge import Ask, JudgeMemo, judge_item
from langbite.evaluate.summary import GroupResult, judge_agreement, summarise
from langbite.execute.engine import Engine, Job, Stats
from langbite.execute.journal import JOURNAL, Journal, read_journal
from langbite.execute.providers import DEFAULT_MODEL, build_service, resolve_spec
from langbite.execute.services import LLMService, close_services
from langbite.library.templates import Library, load_library
from langbite.model import Evaluation, ModelSpec, RequirementsModel, Verdict, answer_key
from langbite.plan import Plan, build_plan
from langbite.report import rows
from langbite.report.csv_writer import write_csv
from langbite.requirements import load_requirements
from langbite.resources import default_template_files
from langbite.selection import Selection
from langbite.rundir import check_out_dir, config_document, locked, read_json_file, snapshot, write_run_json

log = logging.getLogger(__name__)


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




#: The exit codes of `langbite run` and `langbite report`, like a test runner's.
EXIT_CODES = {"passed": 0, "failed": 1, "bad input": 2, "inconclusive": 3, "could not evaluate": 4,
              "stopped at the budget": 5, "interrupted": 130}


@dataclass
class RunResult:
    run_dir: Path
    plan: Plan
    evaluations: list[Evaluation]
    groups: list[GroupResult]
    stats: Stats = field(default_factory=Stats)
    probes: list[Any] = field(default_factory=list)
    failed_calls: int = 0  # planned calls with no answer: failed after every retry, or not run

    @property
    def could_not_evaluate(self) -> bool:
        """More than half of the planned calls got no answer (an outage, a wrong URL, an expired key)."""
        total = self.plan.n_calls
        return total > 0 and self.failed_calls * 2 > total

    @property
    def exit_code(self) -> int:
        """See :data:`EXIT_CODES`: could not evaluate, then failed, then inconclusive, then passed."""
        if self.could_not_evaluate:
            return EXIT_CODES["could not evaluate"]
        verdicts = {g.verdict for g in self.groups}
        if Verdict.FAILED in verdicts:
            return EXIT_CODES["failed"]
        if verdicts & {Verdict.INCONCLUSIVE, Verdict.NOT_EVALUATED}:
            return EXIT_CODES["inconclusive"]
        return EXIT_CODES["passed"]


def _with_system_prompts(specs: list[ModelSpec], config: RequirementsModel,
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


def _model_specs(config: RequirementsModel, options: RunOptions) -> tuple[ModelSpec, ...]:
    specs = [ModelSpec(m) for m in options.models] or list(config.models) or [ModelSpec(DEFAULT_MODEL)]
    specs = _with_system_prompts(specs, config, options)
    if options.base_url:
        specs = [dataclasses.replace(s, base_url=options.base_url) for s in specs]
    errors: list[InputError] = []
    resolved = []
    for s in specs:
        try:
            resolved.append(resolve_spec(s))
        except InputErrors as exc:
            errors.extend(exc.errors)
    if errors:
        raise InputErrors(errors)
    return tuple(dict.fromkeys(resolved))


def _config_dir(config: RequirementsModel) -> Path | None:
    return Path(config.path).parent if config.path and not config.path.startswith("<") else None


def build_probes(config: RequirementsModel) -> list[Any]:
    """The model's probes, populated; every bad name, parameter or data file fails here."""
    from langbite.probes.runner import build_probes as build_each

    return build_each(config.probes, _config_dir(config))


def _declared(config: RequirementsModel) -> dict[str, set[str]]:
    """The markups the requirements declare for their concerns (a new markup needs no edit of concerns.json)."""
    declared: dict[str, set[str]] = {}
    for req in config.requirements:
        declared.setdefault(req.concern, set()).add(req.markup)
    return declared


def _warn_excluded(library: Library) -> None:
    for row in library.excluded_rows():
        log.warning("template left out (%s:%s): %s", row["file"], row["line"],
                    "; ".join(p.split(": ", 1)[-1] for p in row["problems"]))


def _check_prices(config: RequirementsModel) -> None:
    """A budget is enforced with prices: every model (and the judge) needs one, before any call."""
    from langbite.execute.budget import price_of

    specs = list(config.models) + ([resolve_spec(ModelSpec(config.judge))] if config.use_llm_eval and config.judge
                                   else [])
    missing = [s.spec for s in specs if price_of(s, config.prices) is None]
    if missing:
        raise InputErrors.single(config.path or "--budget", f"a budget needs a price for {', '.join(missing)}: give "
                                 "it under 'prices' in the requirements model (US dollars per million tokens)")


def prepare(config: RequirementsModel | Path | str, options: RunOptions | None = None) -> Plan:
    """Load templates and build the plan; raises InputErrors for any bad input."""
    options = options or RunOptions()
    if not isinstance(config, RequirementsModel):
        config = load_requirements(config)
    if options.judge:
        config = dataclasses.replace(config, judge=options.judge)
    if config.use_llm_eval and not config.judge:
        raise InputErrors.single(config.path or "<requirements>", "use_llm_eval needs a judge model: set 'judge' "
                                 "in the requirements model or pass --judge SPEC (a model stronger than the one tested)")
    config = dataclasses.replace(config, models=_model_specs(config, options))
    if options.budget is not None:
        config = dataclasses.replace(config, budget=options.budget)
    if config.budget is not None:
        if options.batch:
            raise InputErrors.single("--batch", "a budget cannot stop a batch once it is submitted: run with a "
                                     "budget interactively, or in batch mode without one (`langbite plan` "
                                     "estimates the cost first)")
        _check_prices(config)
    files: tuple[Path, ...] = ()
    plan = Plan(config, ())
    if config.requirements:
        paths = options.templates or [Path(t) for t in config.templates] or default_template_files()
        if options.use_cache:  # an unchanged library is not checked again (langbite/library/memo.py)
            from langbite.library.memo import default_folder, load_library_remembered

            library = load_library_remembered(paths, default_folder(), _declared(config))
        else:
            library = load_library(paths, declared=_declared(config))
        _warn_excluded(library)
        files = library.files
        plan = dataclasses.replace(build_plan(config, library.templates, options.selection),
                                   excluded=tuple(library.excluded_rows()), selection=options.selection)
    attempts = sum(len(p.attempts) for p in build_probes(config)) if config.probes else 0
    return dataclasses.replace(plan, template_files=files, probe_attempts=attempts)


def build_services(plan: Plan) -> dict[str, LLMService]:
    """Build every model's service (and the judge's), failing before any call."""
    specs = list(plan.models)
    judge = judge_spec(plan)
    if judge:
        specs.append(resolve_spec(ModelSpec(judge)))
    services: dict[str, LLMService] = {}
    errors: list[InputError] = []
    for s in specs:
        if s.spec in services:
            continue
        try:  # the provider gets the spec without its #name: variants share one model
            services[s.spec] = build_service(dataclasses.replace(s, spec=s.base_spec))
        except InputErrors as exc:
            errors.extend(exc.errors)
    if errors:
        raise InputErrors(errors)
    return services


def template_jobs(plan: Plan, spec: str) -> Iterator[Job]:
    for item in plan.items:
        for inst in item.instances:
            for rep in range(plan.config.n_repetitions):
                yield Job(spec, inst.key, inst.prompt, rep)


def _pending(jobs: Iterator[Job], done: set[tuple[str, str, int]]) -> Iterator[Job]:
    return (j for j in jobs if answer_key(j.model, j.key, j.repetition) not in done)


def _engine(plan: Plan, services: dict[str, LLMService], options: RunOptions, journal: Journal | None) -> Engine:
    from langbite.execute.cache import ResponseCache
    from langbite.execute.limits import Limits

    c = plan.config
    limits = {m.spec: Limits(m.requests_per_minute, m.tokens_per_minute) for m in plan.models}
    budget = None
    if c.budget is not None:
        from langbite.execute.budget import Budget, price_of

        specs = [*plan.models, *([resolve_spec(ModelSpec(c.judge))] if c.use_llm_eval and c.judge else [])]
        budget = Budget(c.budget, {s.spec: price_of(s, c.prices) or {"input": 0.0, "output": 0.0} for s in specs})
    return Engine(services, c.generation, retries=c.n_retries, timeout=c.timeout,
                  cache=ResponseCache() if options.use_cache else None, journal=journal,
                  limits={k: v for k, v in limits.items() if v},
                  system_prompts={m.spec: m.system_prompt for m in plan.models if m.system_prompt}, budget=budget)


def judge_spec(plan: Plan) -> str | None:
    c = plan.config
    return resolve_spec(ModelSpec(c.judge)).spec if c.use_llm_eval and c.judge else None


async def _evaluate(plan: Plan, answers: Answers, ask: Ask, readings: ReadingMemo | None = None) -> list[Evaluation]:
    """Every template verdict in plan order (model, template, repetition)."""
    judge = judge_spec(plan)
    out = []
    for spec in plan.models:
        for item in plan.items:
            for rep in range(plan.config.n_repetitions):
                if judge:
                    out.append(await judge_item(ask, judge, item, spec.spec, rep, answers, seed=plan.config.seed,
                                                share=plan.config.judge_sample, remembered=readings))
                else:
                    out.append(evaluate_item(item, spec.spec, rep, answers, readings)[0])
    return out


def _finish_probes(plan: Plan, answers: Answers) -> list[Any]:
    from langbite.probes.runner import finish_probe

    results = []
    for spec in plan.models:
        for probe in build_probes(plan.config):
            results.append(finish_probe(probe, spec.spec, answers, plan.config.generation))
    return results


def write_reports(run_dir: Path, plan: Plan, answers: Answers, evaluations: list[Evaluation],
                  probes: list[Any]) -> list[GroupResult]:
    """The CSV reports (and probe results) of a run: the source of truth the documents are built from."""
    groups = summarise(evaluations, plan.config.requirements)
    if plan.items:
        write_csv(run_dir / "responses.csv", rows.RESPONSE_COLUMNS, rows.response_rows(plan, answers))
        write_csv(run_dir / "evaluations.csv", rows.EVALUATION_COLUMNS, map(rows.evaluation_row, evaluations))
        write_csv(run_dir / "global_evaluation.csv", rows.GLOBAL_COLUMNS, map(rows.global_row, groups))
    if judge_spec(plan):
        write_csv(run_dir / "judge_agreement.csv", rows.JUDGE_AGREEMENT_COLUMNS, judge_agreement(evaluations))
    if probes:
        from langbite.probes.runner import write_results

        write_results(run_dir, probes)
    return groups


def write_documents(run_dir: Path, plan: Plan, answers: Answers, evaluations: list[Evaluation]) -> None:
    """report.xlsx and report.html, from the run's results and the files in its folder."""
    from langbite.report.data import gather
    from langbite.report.excel_writer import write_excel
    from langbite.report.html_writer import write_html

    data = gather(run_dir, plan, answers, evaluations)
    write_excel(run_dir / "report.xlsx", data)
    write_html(run_dir / "report.html", data)


def _counts(plan: Plan, stats: Stats, groups: list[GroupResult], answers_n: int) -> dict[str, Any]:
    return {"templates": len(plan.items), "instances": plan.n_instances, "calls_planned": plan.n_template_calls,
            "probe_calls_planned": plan.probe_attempts * len(plan.models),
            "answers": answers_n, "calls_made": stats.calls, "cache_hits": stats.cache_hits,
            "failed_calls": stats.errors, "retries": stats.retries, "tokens_in": stats.tokens_in,
            "tokens_out": stats.tokens_out, "execution_seconds": round(stats.seconds, 3),
            "groups_passed": sum(g.verdict is Verdict.PASSED for g in groups), "groups_total": len(groups)}


def run(plan: Plan, run_dir: Path, options: RunOptions | None = None) -> RunResult:
    """Execute a prepared plan into ``run_dir`` (resuming whatever it already holds).

    Works from plain scripts and inside a running event loop (a notebook): see :func:`arun`.
    """
    return run_sync(arun(plan, run_dir, options))


async def arun(plan: Plan, run_dir: Path, options: RunOptions | None = None) -> RunResult:
    """:func:`run`, as a coroutine (``await`` it in a notebook or an async application)."""
    options = options or RunOptions()
    check_out_dir(run_dir)
    services = build_services(plan)
    if options.executor == "ray":
        from langbite.execute.ray_executor import ray_services

        services = ray_services(services, {m.spec: m for m in plan.models}, options.ray_actors, options.ray_address)
    with locked(run_dir):
        snapshot(run_dir, config_document(plan.config, plan.template_files, plan.selection), plan.template_files)
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        stats, answers, evaluations = await _execute_and_evaluate(plan, services, options, run_dir)
        clock = time.perf_counter()
        probes = _finish_probes(plan, answers) if plan.config.probes else []
        groups = write_reports(run_dir, plan, answers, evaluations, probes)
        log.info("evaluation and CSV reports: %.2fs", time.perf_counter() - clock)
        identities = {s: services[s].identity for s in services}
        write_run_json(run_dir, plan.config, plan.template_files, identities, started,
                       _counts(plan, stats, groups, len(answers)), plan.excluded)
        clock = time.perf_counter()
        write_documents(run_dir, plan, answers, evaluations)
        log.info("report.xlsx and report.html: %.2fs", time.perf_counter() - clock)
    failed = sum(1 for a in answers.values() if a.error)
    return RunResult(run_dir, plan, evaluations, groups, stats, probes, failed_calls=failed + _missing(plan, answers))


def _missing(plan: Plan, answers: Answers) -> int:
    """Planned calls with no answer at all in the journal (not run)."""
    return max(plan.n_calls - len(answers), 0)


async def _execute_and_evaluate(plan: Plan, services: dict[str, LLMService], options: RunOptions,
                                run_dir: Path) -> tuple[Stats, Answers, list[Evaluation]]:
    done = {k for k, a in read_journal(run_dir).items() if not a.error}
    journal = Journal(run_dir)
    memo = JudgeMemo(run_dir)
    engine = _engine(plan, services, options, journal)
    try:
        # one event loop for execution and judging: LangChain clients do not survive a second one
        return await _run_async(plan, engine, done, options, run_dir, memo)
    finally:
        journal.close()
        memo.close()
        if engine.cache is not None:
            engine.cache.close()


async def _run_async(plan: Plan, engine: Engine, done: set[tuple[str, str, int]], options: RunOptions,
                     run_dir: Path, memo: JudgeMemo) -> tuple[Stats, Answers, list[Evaluation]]:
    try:
        stats = await _execute(plan, engine, done, options, run_dir)
        if engine.budget_reached and engine.budget is not None:
            from langbite.execute.budget import BudgetReached

            raise BudgetReached(engine.budget.spent, engine.budget.limit)
        answers = read_journal(run_dir)
        readings = ReadingMemo(engine.cache) if engine.cache is not None else None
        evaluations = await _evaluate(plan, answers, memo.asker(engine), readings)
    finally:
        await close_services(engine.services.values())
    return stats, answers, evaluations


async def _execute(plan: Plan, engine: Engine, done: set[tuple[str, str, int]], options: RunOptions,
                   run_dir: Path) -> Stats:
    from itertools import chain

    probes = build_probes(plan.config) if plan.config.probes else []

    def jobs_of(spec: str) -> Iterator[Job]:
        return _pending(chain(template_jobs(plan, spec), *_probe_jobs(probes, spec)), done)

    specs = [m.spec for m in plan.models]
    if options.batch:
        from langbite.execute.batch import run_in_batches

        specs = await run_in_batches(engine, run_dir, {spec: jobs_of(spec) for spec in specs}, options.batch_poll)
        done = done | {k for k, a in read_journal(run_dir).items() if not a.error}
    jobs = {spec: jobs_of(spec) for spec in specs}
    concurrency = {m.spec: options.concurrency or m.concurrency or plan.config.concurrency for m in plan.models}
    per_model = plan.n_calls // max(len(plan.models), 1)  # every model gets the same calls
    total = per_model * len(specs) - sum(1 for k in done if k[0] in specs)
    return await engine.run(jobs, concurrency, max(total, 0), progress=options.progress)


def _probe_jobs(probes: list[Any], spec: str) -> list[Iterator[Job]]:
    """Every probe's jobs for one model (the probe machinery is imported only when a run has probes)."""
    if not probes:
        return []
    from langbite.probes.runner import probe_jobs

    return [probe_jobs(p, spec) for p in probes]


def rebuild(run_dir: Path) -> RunResult:
    """:func:`arebuild`, from synchronous code (also inside a running event loop)."""
    return run_sync(arebuild(run_dir))


def plan_of(run_dir: Path) -> Plan:
    """The plan of a run folder, rebuilt from its config.json and template snapshot (no model is called)."""
    config_path = run_dir / "config.json"
    if not run_dir.is_dir() or not config_path.exists():
        raise InputErrors.single(str(run_dir), "not a run folder (no config.json)")
    doc = read_json_file(config_path, "run's config.json")
    from langbite.requirements import parse_requirements

    names = doc.pop("templates", [])
    chosen = doc.pop("selection", None) or {}
    selection = Selection(chosen.get("keyword"), tuple(chosen.get("ids", ())), chosen.get("limit"))
    config = parse_requirements({k: v for k, v in doc.items() if v is not None}, str(config_path))
    files = tuple(run_dir / "templates" / n for n in names)
    if not config.requirements:
        return dataclasses.replace(Plan(config, ()), template_files=files)
    library = load_library(files, declared=_declared(config))
    plan = build_plan(config, library.templates, selection)
    return dataclasses.replace(plan, template_files=files, excluded=tuple(library.excluded_rows()),
                               selection=selection)


async def arebuild(run_dir: Path) -> RunResult:
    """Re-evaluate a run folder and rewrite its reports, calling no model.

    The plan is rebuilt from the folder's config.json and template snapshot;
    judge replies come from its judge.jsonl. A folder without its journal is
    refused: rebuilding would overwrite good reports with "not run".
    """
    plan = plan_of(run_dir)
    if not (run_dir / JOURNAL).exists():
        raise InputErrors.single(str(run_dir), f"the journal {JOURNAL} is missing, so the answers are gone; "
                                 "the reports were left as they are")
    answers = read_journal(run_dir)
    memo = JudgeMemo(run_dir)
    from langbite.execute.cache import ResponseCache, default_cache_path

    # readings remembered by an earlier run or rebuild, if this machine has a cache (none is made for them)
    cache = ResponseCache() if default_cache_path().exists() else None
    try:
        evaluations = await _evaluate(plan, answers, memo.asker(None),
                                      ReadingMemo(cache) if cache is not None else None)
    finally:
        memo.close()
        if cache is not None:
            cache.close()
    probes = _finish_probes(plan, answers) if plan.config.probes else []
    groups = write_reports(run_dir, plan, answers, evaluations, probes)
    write_documents(run_dir, plan, answers, evaluations)
    failed = sum(1 for a in answers.values() if a.error) + _missing(plan, answers)
    return RunResult(run_dir, plan, evaluations, groups, probes=probes, failed_calls=failed)
