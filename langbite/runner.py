"""One run, end to end: prepare → run → rebuild, for every suite of the run.

The runner knows suites only through their protocol (:mod:`langbite.suites`):
it builds every registered suite from the requirements model, runs all their
jobs through one engine (one journal, cache, limits, budget, batch mode and
resume), lets each suite read its answers into typed results, and writes what
every result contributes: its files, ``run.json`` and the documents. The CLI
and the Python API (:class:`langbite.LangBiTe`) both call these functions;
everything wrong with the input is found in :func:`prepare`, before any call.

A run folder holds ``config.json`` (the requirements model as run),
``templates/`` (a snapshot of the input files), ``answers.jsonl`` (the
journal), ``judge.jsonl`` (judge replies), each suite's files and ``run.json``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from langbite.aio import run_sync
from langbite.errors import InputErrors
from langbite.evaluate.judge import JudgeMemo
from langbite.evaluate.memo import ReadingMemo
from langbite.execute.budget import BudgetReached
from langbite.execute.engine import Stats
from langbite.execute.journal import JOURNAL, Journal, read_journal
from langbite.execute.services import ChatService, close_services
from langbite.execute.setup import build_engine, build_services, run_jobs
from langbite.model import ExitCode, GroupVerdict, RequirementsModel
from langbite.requirements import load_requirements, parse_requirements
from langbite.resolve import RunOptions, check_size, judge_spec, resolve
from langbite.rundir import check_out_dir, config_document, locked, read_json_file, snapshot, write_run_json
from langbite.selection import Selection
from langbite.suites import Answers, BuildOptions, Context, Plan, SuiteResult, build_suites

log = logging.getLogger(__name__)
__all__ = ["Plan", "RunOptions", "RunResult", "arebuild", "arun", "plan_of", "prepare", "rebuild", "run"]


@dataclass
class RunResult:
    """A finished (or rebuilt) run: its plan, every suite's results, and what execution counted."""

    run_dir: Path
    plan: Plan
    results: tuple[SuiteResult, ...] = ()
    stats: Stats = field(default_factory=Stats)
    failed_calls: int = 0  # planned calls with no answer: failed after every retry, or not run

    def result(self, name: str) -> SuiteResult | None:
        """The results of the suite registered as ``name``, if the run had one."""
        return next((r for r in self.results if getattr(r, "name", "") == name), None)

    @property
    def could_not_evaluate(self) -> bool:
        """More than half of the planned calls got no answer (an outage, a wrong URL, an expired key)."""
        total = self.plan.n_calls()
        return total > 0 and self.failed_calls * 2 > total

    @property
    def exit_code(self) -> ExitCode:
        """Could not evaluate, then failed, then inconclusive, then passed (see :class:`ExitCode`)."""
        if self.could_not_evaluate:
            return ExitCode.NOT_EVALUATED
        verdicts = {v for r in self.results for v in r.verdicts()}
        if GroupVerdict.FAILED in verdicts:
            return ExitCode.FAILED
        if verdicts & {GroupVerdict.INCONCLUSIVE, GroupVerdict.NOT_EVALUATED}:
            return ExitCode.INCONCLUSIVE
        return ExitCode.PASSED


def _build_options(options: RunOptions) -> BuildOptions:
    return BuildOptions(tuple(options.templates), options.selection, options.use_cache, options.data,
                        options.skip_invalid_templates)


def prepare(config: RequirementsModel | Path | str, options: RunOptions | None = None) -> Plan:
    """Resolve the requirements model and build every suite; raises InputErrors for any bad input."""
    options = options or RunOptions()
    if not isinstance(config, RequirementsModel):
        config = load_requirements(config)
    config = resolve(config, options)
    return Plan(config, build_suites(config, _build_options(options)), options.selection, tuple(options.templates))


def run(plan: Plan, run_dir: Path, options: RunOptions | None = None) -> RunResult:
    """Execute a prepared plan into ``run_dir`` (resuming whatever it already holds).

    Works from plain scripts and inside a running event loop (a notebook): see :func:`arun`.
    """
    return run_sync(arun(plan, run_dir, options))


async def arun(plan: Plan, run_dir: Path, options: RunOptions | None = None) -> RunResult:
    """:func:`run`, as a coroutine (``await`` it in a notebook or an async application)."""
    options = options or RunOptions()
    check_size(plan, options)
    check_out_dir(run_dir, force=options.force, inputs=plan.snapshot_files())
    services = build_services(plan.models, judge_spec(plan.config))
    if options.executor == "ray":
        from langbite.execute.ray_executor import ray_services

        services = ray_services(services, {m.spec: m for m in plan.models}, options.ray_actors, options.ray_address)
    with locked(run_dir):
        files = plan.snapshot_files()
        snapshot(run_dir, config_document(plan.config, files, plan.selection), files)
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        stats, results, answers = await _execute_and_evaluate(plan, services, options, run_dir)
        _write(run_dir, plan, results, {s: services[s].identity for s in services}, started, stats, len(answers))
    return RunResult(run_dir, plan, results, stats, failed_calls=_failed(plan, answers))


def _failed(plan: Plan, answers: Answers) -> int:
    """Planned calls with no answer: recorded as an error, or not in the journal at all (not run)."""
    errors = sum(1 for a in answers.values() if a.error)
    return errors + max(plan.n_calls() - len(answers), 0)


async def _execute_and_evaluate(plan: Plan, services: dict[str, ChatService], options: RunOptions,
                                run_dir: Path) -> tuple[Stats, tuple[SuiteResult, ...], Answers]:
    done = {k for k, a in read_journal(run_dir).items() if not a.error}
    journal = Journal(run_dir)
    memo = JudgeMemo(run_dir)
    engine = build_engine(plan.config, services, journal, use_cache=options.use_cache)
    try:  # one event loop for execution and judging: LangChain clients do not survive a second one
        try:
            stats = await run_jobs(plan, engine, done, options, run_dir)
            if engine.budget_reached and engine.budget is not None:
                raise BudgetReached(engine.budget.spent, engine.budget.limit)
            readings = ReadingMemo(engine.cache) if engine.cache is not None else None
            answers = read_journal(run_dir)
            results = await _evaluate(plan, run_dir, answers, memo.asker(engine), readings)
        finally:
            await close_services(engine.services.values())
    finally:
        journal.close()
        memo.close()
        if engine.cache is not None:
            engine.cache.close()
    return stats, results, answers


async def _evaluate(plan: Plan, run_dir: Path, answers: Answers, ask: Any,
                    readings: ReadingMemo | None) -> tuple[SuiteResult, ...]:
    ctx = Context(plan.config, answers, run_dir, ask, judge_spec(plan.config), readings)
    return tuple([await suite.evaluate(ctx) for suite in plan.suites])


def _write(run_dir: Path, plan: Plan, results: tuple[SuiteResult, ...], identities: dict[str, str], started: str,
           stats: Stats, answers: int) -> None:
    """Every suite's files, run.json, then the documents (workbook and page) built from them."""
    clock = time.perf_counter()
    counts: dict[str, Any] = {"answers": answers, "calls_made": stats.calls, "cache_hits": stats.cache_hits,
                              "failed_calls": stats.errors, "retries": stats.retries, "tokens_in": stats.tokens_in,
                              "tokens_out": stats.tokens_out, "execution_seconds": round(stats.seconds, 3)}
    provenance: dict[str, Any] = {}
    for result in results:
        result.write(run_dir)
        counts.update(result.counts())
        provenance.update(result.provenance())
    log.info("evaluation and CSV reports: %.2fs", time.perf_counter() - clock)
    write_run_json(run_dir, plan.config, plan.snapshot_files(), identities, started, counts, plan.notes(), provenance)
    clock = time.perf_counter()
    from langbite.report.documents import write_documents

    write_documents(run_dir, plan, results)
    log.info("report.xlsx and report.html: %.2fs", time.perf_counter() - clock)


def rebuild(run_dir: Path) -> RunResult:
    """:func:`arebuild`, from synchronous code (also inside a running event loop)."""
    return run_sync(arebuild(run_dir))


def plan_of(run_dir: Path) -> Plan:
    """The plan of a run folder, rebuilt from its config.json and input snapshot (no model is called)."""
    config_path = run_dir / "config.json"
    if not run_dir.is_dir() or not config_path.exists():
        raise InputErrors.single(str(run_dir), "not a run folder (no config.json)")
    doc = read_json_file(config_path, "run's config.json")
    names = doc.pop("templates", [])
    chosen = doc.pop("selection", None) or {}
    selection = Selection(chosen.get("keyword"), tuple(chosen.get("ids", ())), chosen.get("limit"))
    config = parse_requirements({k: v for k, v in doc.items() if v is not None}, str(config_path))
    files = tuple(run_dir / "templates" / n for n in names)
    options = BuildOptions(files, selection, use_cache=False, skip_invalid_templates=True)  # as it ran
    return Plan(config, build_suites(config, options), selection, files)


async def arebuild(run_dir: Path) -> RunResult:
    """Re-evaluate a run folder and rewrite its reports, calling no model.

    The plan is rebuilt from the folder's config.json and snapshot; judge replies come
    from its judge.jsonl. A folder without its journal is refused: rebuilding would
    overwrite good reports with "not run".
    """
    plan = plan_of(run_dir)
    if not (run_dir / JOURNAL).exists():
        raise InputErrors.single(str(run_dir), f"the journal {JOURNAL} is missing, so the answers are gone; "
                                 "the reports were left as they are")
    memo = JudgeMemo(run_dir)
    from langbite.execute.cache import ResponseCache, default_cache_path

    # readings remembered by an earlier run or rebuild, if this machine has a cache (none is made for them)
    cache = ResponseCache() if default_cache_path().exists() else None
    answers = read_journal(run_dir)
    try:
        results = await _evaluate(plan, run_dir, answers, memo.asker(None),
                                  ReadingMemo(cache) if cache is not None else None)
    finally:
        memo.close()
        if cache is not None:
            cache.close()
    meta = _previous_run(run_dir)
    _write(run_dir, plan, results, meta.get("identities", {}), meta.get("started", ""), Stats(), len(answers))
    return RunResult(run_dir, plan, results, failed_calls=_failed(plan, answers))


def _previous_run(run_dir: Path) -> dict[str, Any]:
    """What the run's own run.json recorded (start time, model identities), kept by a rebuild."""
    path = run_dir / "run.json"
    if not path.exists():
        return {}
    try:
        doc = read_json_file(path, "run.json")
    except InputErrors as exc:
        log.warning("%s is damaged (%s); it is written again from the run folder", path,
                    "; ".join(e.message for e in exc.errors))
        return {}
    if not isinstance(doc, dict):
        return {}
    identities = {m.get("spec", ""): m.get("identity", "") for m in doc.get("models", []) if isinstance(m, dict)}
    return {"started": doc.get("started", ""), "identities": identities}

