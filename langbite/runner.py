"""One run, end to end: load → plan → execute → evaluate → report.

The CLI and the Python API (:class:`langbite.LangBiTe`) both call these
functions. Everything that can be wrong with the input is found in
:func:`prepare`, before any model is called.

A run folder holds ``config.json`` (the requirements model as run),
``templates/`` (a snapshot of the library files used), ``answers.jsonl`` (the
journal), ``judge.jsonl`` (judge replies), the CSV reports and ``run.json``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from langbite.errors import InputErrors
from langbite.evaluate.judge import Ask, JudgeMemo, judge_item
from langbite.evaluate.evaluation import evaluate_item
from langbite.evaluate.summary import GroupResult, summarise
from langbite.execute.cache import ResponseCache
from langbite.execute.engine import Engine, Job, RateLimiter, Stats, estimated_tokens
from langbite.execute.journal import Journal, Key, answer_key, read_journal
from langbite.execute.providers import DEFAULT_MODEL, build_service, resolve_spec
from langbite.execute.services import GenerationParams, LLMService, close_services
from langbite.library.templates import load_templates, template_files
from langbite.model import Answer, Evaluation, ModelSpec, RequirementsModel, Verdict
from langbite.plan import Plan, build_plan
from langbite.report import rows
from langbite.report.csv_writer import write_csv
from langbite.requirements import load_requirements
from langbite.resources import default_template_files
from langbite.rundir import config_document, snapshot, write_run_json

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


@dataclass
class RunResult:
    run_dir: Path
    plan: Plan
    evaluations: list[Evaluation]
    groups: list[GroupResult]
    stats: Stats = field(default_factory=Stats)
    probes: list[Any] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 when every group passed, 1 when any failed (or could not be evaluated)."""
        return 0 if all(g.verdict is Verdict.PASSED for g in self.groups) else 1


def _model_specs(config: RequirementsModel, options: RunOptions) -> tuple[ModelSpec, ...]:
    specs = [ModelSpec(m) for m in options.models] or list(config.models) or [ModelSpec(DEFAULT_MODEL)]
    if options.base_url:
        specs = [dataclasses.replace(s, base_url=options.base_url) for s in specs]
    errors: list[Any] = []
    resolved = []
    for s in specs:
        try:
            resolved.append(resolve_spec(s))
        except InputErrors as exc:
            errors.extend(exc.errors)
    if errors:
        raise InputErrors(errors)
    return tuple(dict.fromkeys(resolved))


def prepare(config: RequirementsModel | Path | str, options: RunOptions | None = None) -> Plan:
    """Load templates and build the plan; raises InputErrors for any bad input."""
    options = options or RunOptions()
    if not isinstance(config, RequirementsModel):
        config = load_requirements(config)
    if options.judge:
        config = dataclasses.replace(config, judge=options.judge)
    files = template_files(options.templates) if options.templates else default_template_files()
    templates = load_templates(files)
    plan = build_plan(config, templates, _model_specs(config, options))
    for entry in config.probes:
        _build_probe(entry, config)  # bad probe names or data fail here, before any call
    return dataclasses.replace(plan, template_files=tuple(files))


def _build_probe(entry: dict[str, Any], config: RequirementsModel) -> Any:
    from langbite.probes.runner import build_probe

    data = entry.get("data")
    if data and config.path and not Path(data).is_absolute():
        data = str(Path(config.path).parent / data)
    name = entry["name"]
    if name.endswith((".json", ".yaml", ".yml")) and config.path and not Path(name).is_absolute():
        name = str(Path(config.path).parent / name)
    return build_probe(name, data=data, sample_k=entry.get("sample_k"), repetitions=entry.get("num_repetitions"),
                       seed=entry.get("random_seed", config.seed), params=entry.get("params"))


def run_probes(plan: Plan, run_dir: Path, options: RunOptions) -> list[Any]:
    """The requirements model's probes, against every model, written into the run folder."""
    from langbite.probes.runner import run_probe, write_results

    results = []
    for spec in plan.models:
        for entry in plan.config.probes:
            probe = _build_probe(entry, plan.config)
            results.append(run_probe(probe, spec.spec, concurrency=options.concurrency or plan.config.concurrency,
                                     use_cache=options.use_cache, progress=options.progress,
                                     base_url=spec.base_url, retries=plan.config.n_retries,
                                     timeout=plan.config.timeout))
    if results:
        write_results(run_dir, results)
    return results


def build_services(plan: Plan) -> dict[str, LLMService]:
    """Build every model's service (and the judge's), failing before any call."""
    specs = list(plan.models)
    if plan.config.use_llm_eval:
        specs.append(resolve_spec(ModelSpec(plan.config.judge or DEFAULT_MODEL)))
    services: dict[str, LLMService] = {}
    errors = []
    for s in specs:
        if s.spec in services:
            continue
        try:
            services[s.spec] = build_service(s)
        except InputErrors as exc:
            errors.extend(exc.errors)
    if errors:
        raise InputErrors(errors)
    return services


def _jobs(plan: Plan, spec: str, done: set[Key]):  # type: ignore[no-untyped-def]
    for item in plan.items:
        for inst in item.instances:
            for rep in range(plan.config.n_repetitions):
                if answer_key(spec, inst, rep) not in done:
                    yield Job(spec, inst, rep)


def _engine(plan: Plan, services: dict[str, LLMService], options: RunOptions, journal: Journal | None) -> Engine:
    c = plan.config
    limiters: dict[str, list[RateLimiter]] = {}
    for m in plan.models:
        if m.requests_per_minute:
            limiters.setdefault(m.spec, []).append(RateLimiter(m.requests_per_minute))
        if m.tokens_per_minute:
            limiters.setdefault(m.spec, []).append(RateLimiter(m.tokens_per_minute, estimated_tokens))
    return Engine(services, GenerationParams(c.temperature, c.tokens, c.seed), retries=c.n_retries,
                  timeout=c.timeout, cache=ResponseCache() if options.use_cache else None, journal=journal,
                  limiters=limiters)


async def _execute(plan: Plan, engine: Engine, done: set[Key], options: RunOptions) -> Stats:
    per_model = plan.n_instances * plan.config.n_repetitions
    jobs = {m.spec: _jobs(plan, m.spec, done) for m in plan.models}
    concurrency = {m.spec: options.concurrency or m.concurrency or plan.config.concurrency for m in plan.models}
    total = per_model * len(plan.models) - len(done)
    return await engine.run(jobs, concurrency, total, progress=options.progress)


def judge_spec(plan: Plan) -> str | None:
    c = plan.config
    return resolve_spec(ModelSpec(c.judge or DEFAULT_MODEL)).spec if c.use_llm_eval else None


async def _evaluate(plan: Plan, answers: dict[Key, Answer], ask: Ask) -> list[Evaluation]:
    """Every template verdict in plan order (model, template, repetition)."""
    judge = judge_spec(plan)
    out = []
    for spec in plan.models:
        for item in plan.items:
            for rep in range(plan.config.n_repetitions):
                if judge:
                    out.append(await judge_item(ask, judge, item, spec.spec, rep, answers))
                else:
                    out.append(evaluate_item(item, spec.spec, rep, answers)[0])
    return out


def write_probe_documents(run_dir: Path, meta: dict[str, Any] | None = None) -> list[Path]:
    """report.xlsx and report.html of a folder written by `langbite probe` (no template tests)."""
    from langbite.report.data import gather_probes_only
    from langbite.report.excel_writer import write_excel
    from langbite.report.html_writer import write_html

    data = gather_probes_only(run_dir, meta)
    return [write_excel(run_dir / "report.xlsx", data), write_html(run_dir / "report.html", data)]


def is_probe_folder(run_dir: Path) -> bool:
    return not (run_dir / "config.json").exists() and any(run_dir.glob("probe_*_metrics.csv"))


def rebuild(run_dir: Path) -> RunResult:
    """Re-evaluate a run folder and rewrite its reports, calling no model.

    The plan is rebuilt from the folder's config.json and template snapshot;
    judge replies come from its judge.jsonl.
    """
    config_path = run_dir / "config.json"
    if not config_path.exists():
        raise InputErrors.single(str(run_dir), "not a run folder (no config.json)")
    doc = json.loads(config_path.read_text(encoding="utf-8"))
    names = doc.pop("templates", [])
    models = [m["model"] for m in doc.get("aiModels", [])]
    doc = {k: v for k, v in doc.items() if v is not None}
    from langbite.requirements import parse_requirements

    config = parse_requirements(doc, str(config_path))
    files = [run_dir / "templates" / n for n in names]
    plan = build_plan(config, load_templates(files), tuple(ModelSpec(m) for m in models))
    plan = dataclasses.replace(plan, template_files=tuple(files))
    answers = read_journal(run_dir)
    memo = JudgeMemo(run_dir)
    try:
        evaluations = asyncio.run(_evaluate(plan, answers, memo.asker(None)))
    finally:
        memo.close()
    groups = write_reports(run_dir, plan, answers, evaluations)
    write_documents(run_dir, plan, answers, evaluations)
    return RunResult(run_dir, plan, evaluations, groups)


def write_reports(run_dir: Path, plan: Plan, answers: dict[Key, Answer],
                  evaluations: list[Evaluation]) -> list[GroupResult]:
    groups = summarise(evaluations, plan.config.requirements)
    write_csv(run_dir / "responses.csv", rows.RESPONSE_COLUMNS, rows.response_rows(plan, answers))
    write_csv(run_dir / "evaluations.csv", rows.EVALUATION_COLUMNS, map(rows.evaluation_row, evaluations))
    write_csv(run_dir / "global_evaluation.csv", rows.GLOBAL_COLUMNS, map(rows.global_row, groups))
    return groups


def run(plan: Plan, run_dir: Path, options: RunOptions | None = None) -> RunResult:
    """Execute a prepared plan into ``run_dir`` (resuming whatever it already holds)."""
    options = options or RunOptions()
    clock = time.perf_counter()
    services = build_services(plan)
    snapshot(plan, run_dir, config_document(plan))
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    done = {k for k, a in read_journal(run_dir).items() if not a.error}
    journal = Journal(run_dir)
    memo = JudgeMemo(run_dir)
    engine = _engine(plan, services, options, journal)
    try:
        # one event loop for execution and judging: LangChain clients do not survive a second one
        stats, answers, evaluations = asyncio.run(_run_async(plan, engine, done, options, run_dir, memo))
    finally:
        journal.close()
        memo.close()
        if engine.cache is not None:
            engine.cache.close()
    log.info("execution and evaluation: %.2fs", time.perf_counter() - clock)
    clock = time.perf_counter()
    groups = write_reports(run_dir, plan, answers, evaluations)
    log.info("CSV reports: %.2fs", time.perf_counter() - clock)
    probe_results = run_probes(plan, run_dir, options)
    write_run_json(run_dir, plan, services, stats, groups, started, len(answers))
    clock = time.perf_counter()
    write_documents(run_dir, plan, answers, evaluations)
    log.info("report.xlsx and report.html: %.2fs", time.perf_counter() - clock)
    return RunResult(run_dir, plan, evaluations, groups, stats, probe_results)


def write_documents(run_dir: Path, plan: Plan, answers: dict[Key, Answer], evaluations: list[Evaluation]) -> None:
    """report.xlsx and report.html, from the run's results and the files in its folder."""
    from langbite.report.data import gather
    from langbite.report.excel_writer import write_excel
    from langbite.report.html_writer import write_html

    data = gather(run_dir, plan, answers, evaluations)
    write_excel(run_dir / "report.xlsx", data)
    write_html(run_dir / "report.html", data)


async def _run_async(plan: Plan, engine: Engine, done: set[Key], options: RunOptions, run_dir: Path,
                     memo: JudgeMemo) -> tuple[Stats, dict[Key, Answer], list[Evaluation]]:
    try:
        stats = await _execute(plan, engine, done, options)
        answers = read_journal(run_dir)
        evaluations = await _evaluate(plan, answers, memo.asker(engine))
    finally:
        await close_services(engine.services.values())
    return stats, answers, evaluations
