"""Template tests as a suite: the library's templates, instantiated per requirement, read by their oracles.

Built from the requirements model's requirements and a template library (the
model's own ``templates``, the command line's ``--templates``, or the shipped
library); every instance of every selected template is one call per model and
repetition. After execution each template's answers are read together by its
oracle (and the judge LLM where the run has one), and the template verdicts are
aggregated per requirement × model × language into a pass rate with its 95%
interval and a verdict against the tolerance.

Its files in the run folder: ``responses.csv`` (every prompt and answer),
``evaluations.csv`` (every template verdict), ``global_evaluation.csv`` (pass
rates per group and breakdown) and, with a judge, ``judge_agreement.csv``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from itertools import islice
from pathlib import Path
from typing import Any, ClassVar

from langbite.evaluate.evaluation import evaluate_item
from langbite.evaluate.judge import judge_item
from langbite.evaluate.summary import GroupResult, summarise
from langbite.execute.engine import Job
from langbite.library.templates import ExcludedRow, Library, load_library
from langbite.errors import InputError, InputErrors
from langbite.model import Evaluation, GroupVerdict, RequirementsModel
from langbite.plan import PlannedTemplate, TemplatePlan, build_plan
from langbite.report import rows
from langbite.report.csv_writer import write_csv
from langbite.resources import default_template_files
from langbite.suites.base import Answers, BuildOptions, Context, Note, register

log = logging.getLogger(__name__)
NAME = "templates"
#: The groups a requirement's verdict is given for, in every output: requirement × model × language.
VERDICT_GROUP = ("provider", "model", "requirement", "concern", "language")


def declared_markups(config: RequirementsModel) -> dict[str, set[str]]:
    """The markups the requirements declare for their concerns (a new markup needs no edit of concerns.json)."""
    declared: dict[str, set[str]] = {}
    for req in config.requirements:
        declared.setdefault(req.concern, set()).add(req.markup)
    return declared


def _project_library(config: RequirementsModel) -> Path | None:
    """A ``templates/`` folder beside the requirements model, or beside its folder (a project laid out like
    ``langbite init`` makes it, or like this repository: ``requirements_models/`` and ``templates/``)."""
    if not config.path or config.path.startswith("<"):
        return None
    folder = Path(config.path).resolve().parent
    for candidate in (folder / "templates", folder.parent / "templates"):
        if candidate.is_dir() and any(candidate.glob("prompts_*.*sv")):
            return candidate
    return None


def library_paths(config: RequirementsModel, options: BuildOptions) -> tuple[list[Path], str]:
    """The libraries a run uses, and where that choice came from: the command line's ``--templates``, else the
    requirements model's ``templates``, else a ``templates/`` folder beside the model, else the shipped library."""
    if options.libraries:
        return list(options.libraries), "--templates"
    if config.templates:
        return [Path(t) for t in config.templates], "the requirements model's 'templates'"
    project = _project_library(config)
    if project is not None:
        return [project], "the templates folder beside the requirements model"
    return default_template_files(), "the library shipped with langbite"


def load(config: RequirementsModel, options: BuildOptions) -> tuple[Library, str]:
    paths, source = library_paths(config, options)
    where = ", ".join(str(p) for p in dict.fromkeys(p if p.is_dir() else p.parent for p in paths))
    source = f"{where} ({source})"
    if options.use_cache:  # an unchanged library is not checked again (langbite/library/memo.py)
        from langbite.library.memo import default_folder, load_library_remembered

        return load_library_remembered(paths, default_folder(), declared_markups(config)), source
    return load_library(paths, declared=declared_markups(config)), source


@dataclass(frozen=True)
class TemplateSuite:
    """The template tests of a run."""

    name: ClassVar[str] = NAME

    plan: TemplatePlan
    files: tuple[Path, ...] = ()
    excluded: tuple[ExcludedRow, ...] = ()
    library: str = ""  # the library folder used, and why (for the plan, the run's first line and run.json)

    @property
    def items(self) -> tuple[PlannedTemplate, ...]:
        return self.plan.items

    @property
    def config(self) -> RequirementsModel:
        return self.plan.config

    def n_calls(self, model: str) -> int:
        return self.plan.n_instances * self.config.n_repetitions

    def jobs(self, model: str) -> Iterator[Job]:
        reps = self.config.n_repetitions
        for item in self.plan.items:
            for inst in item.each():
                for rep in range(reps):
                    yield Job(model, inst.key, inst.prompt, rep)

    def sampled_prompts(self, model: str, k: int) -> Iterator[tuple[str, float]]:
        """About ``k`` prompts, each with the number of calls it stands for (a cost estimate of a huge plan)."""
        per_item = max(1, k // max(1, len(self.plan.items)))
        for item in self.plan.items:
            prompts = [inst.prompt for inst in islice(item.each(), per_item)]
            for prompt in prompts:
                yield prompt, item.n_instances * self.config.n_repetitions / len(prompts)

    def describe(self) -> list[str]:
        lines = [f"library: {self.library}"] if self.library else []
        lines.append(f"{'requirement':<32} {'lang':<6} {'templates':>9} {'instances':>9}")
        for req, lang, n_t, n_i in self.plan.counts():
            lines.append(f"{req[:32]:<32} {lang:<6} {n_t:>9} {n_i:>9}")
        return lines

    def notes(self) -> list[Note]:
        out = [Note(left.message()) for left in self.plan.left_out]
        out += [Note("for a template problem (run `langbite validate` on it)", row.file, row.line, row.problems)
                for row in self.excluded]
        return out

    def snapshot_files(self) -> tuple[Path, ...]:
        return self.files

    async def evaluate(self, ctx: Context) -> TemplateResults:
        """Every template verdict in plan order (model, template, repetition), and the groups' verdicts."""
        out: list[Evaluation] = []
        reps = self.config.n_repetitions
        for spec in ctx.models:
            for item in self.plan.items:
                for rep in range(reps):
                    if ctx.judge and ctx.ask is not None:
                        out.append(await judge_item(ctx.ask, ctx.judge, item, spec.spec, rep, ctx.answers,
                                                    seed=self.config.seed, share=self.config.judge_sample,
                                                    remembered=ctx.readings))
                    else:
                        out.append(evaluate_item(item, spec.spec, rep, ctx.answers, ctx.readings)[0])
        return TemplateResults(self, ctx.answers, tuple(out), judged=bool(ctx.judge))


@register(NAME)
def build(config: RequirementsModel, options: BuildOptions) -> TemplateSuite | None:
    """The template suite of a requirements model with requirements (None without any)."""
    if not config.requirements:
        return None
    library, source = load(config, options)
    excluded = library.excluded_rows()
    if excluded and not (options.skip_invalid_templates or config.skip_invalid_templates):
        # as pytest stops at a collection error: a test a team just added must not silently never run
        raise InputErrors([*library.excluded, InputError(
            "--skip-invalid-templates", 0, 0, f"{len(excluded)} library row(s) have a problem (each one is listed) and nothing was "
            "sent: fix them, or run without them with --skip-invalid-templates (or \"skip_invalid_templates\": "
            "true in the requirements model)")])
    for row in excluded:
        log.warning("template left out (%s:%s): %s", row.file, row.line,
                    "; ".join(p.split(": ", 1)[-1] for p in row.problems))
    plan = build_plan(config, library.templates, options.selection)
    return TemplateSuite(plan, library.files, excluded, source)


@dataclass(frozen=True)
class TemplateResults:
    """Every template verdict of a run, and the verdict of each requirement × model × language."""

    suite: TemplateSuite
    answers: Answers = field(repr=False)
    evaluations: tuple[Evaluation, ...] = ()
    judged: bool = False

    @property
    def name(self) -> str:
        return NAME

    def groups(self, by: tuple[str, ...] = VERDICT_GROUP) -> list[GroupResult]:
        """Pass rates and verdicts per group (by default requirement × model × language, as every output)."""
        return summarise(self.evaluations, self.suite.config.requirements, by=by)

    @cached_property
    def counterfactual_rows(self) -> list[rows.CounterfactualRow]:
        from langbite.evaluate.counterfactual import metrics

        plan = self.suite.plan
        return metrics(plan.items, self.evaluations, self.answers, [m.spec for m in plan.models],
                       plan.config.n_repetitions, plan.config.seed)

    def counterfactual(self) -> list[rows.CounterfactualRow]:
        """Counterfactual metrics per requirement × model × language × pair of communities, with intervals
        (computed once, for the CSV and the documents)."""
        return self.counterfactual_rows

    def verdicts(self) -> list[GroupVerdict]:
        return [g.verdict for g in self.groups()]

    @cached_property
    def disfavoured_rows(self) -> list[rows.DisfavouredRow]:
        return rows.disfavoured_rows(self.suite.plan, self.evaluations)

    def disfavoured(self) -> list[rows.DisfavouredRow]:
        """Who the failed templates disfavoured, per requirement × model × language (see rows.disfavoured_rows)."""
        return self.disfavoured_rows

    def counts(self) -> dict[str, Any]:
        groups = self.groups()
        plan = self.suite.plan
        return {"templates": len(plan.items), "instances": plan.n_instances,
                "calls_planned": plan.n_calls, "evaluations": len(self.evaluations),
                "groups_passed": sum(g.verdict is GroupVerdict.PASSED for g in groups), "groups_total": len(groups)}

    def provenance(self) -> dict[str, Any]:
        return {"library": self.suite.library}

    def write(self, run_dir: Path) -> list[Path]:
        written = []
        if self.suite.plan.items:
            plan = self.suite.plan
            for name, columns, source in (
                    ("responses.csv", rows.RESPONSE_COLUMNS, rows.response_rows(plan, self.answers)),
                    ("counterfactual.csv", rows.COUNTERFACTUAL_COLUMNS, self.counterfactual()),
                    ("evidence.csv", rows.EVIDENCE_COLUMNS, rows.evidence_rows(plan, self.answers, self.evaluations)),
                    ("disfavoured.csv", rows.DISFAVOURED_COLUMNS, self.disfavoured()),
                    ("evaluations.csv", rows.EVALUATION_COLUMNS, map(rows.evaluation_row, self.evaluations)),
                    ("summary.csv", rows.GLOBAL_COLUMNS, map(rows.global_row, self.groups())),
                    ("global_evaluation.csv", rows.GLOBAL_COLUMNS,
                     map(rows.global_row, summarise(self.evaluations, plan.config.requirements)))):
                write_csv(run_dir / name, columns, source)
                written.append(run_dir / name)
        if self.judged:
            write_csv(run_dir / "judge_agreement.csv", rows.JUDGE_AGREEMENT_COLUMNS,
                      rows.judge_agreement_rows(self.evaluations))
            written.append(run_dir / "judge_agreement.csv")
        return written

    def console(self) -> list[str]:
        """One row per requirement × model × language, then the count line."""
        if not self.suite.plan.items:
            return []
        groups = self.groups()
        lines = [f"{'model':<24} {'requirement':<26} {'lang':<6} {'passed':>6} {'failed':>6} {'refused':>7} "
                 f"{'undet.':>6} {'errors':>6} {'pass %':>6} {'tol. %':>6}  verdict"]
        for g in groups:
            rate = f"{g.pass_rate:.0%}" if g.pass_rate is not None else "-"
            lines.append(f"{(g.provider + ':' + g.model)[:24]:<24} {g.requirement[:26]:<26} {g.language:<6} "
                         f"{g.passed:>6} {g.failed:>6} {g.refused:>7} {g.undetermined:>6} {g.errors:>6} {rate:>6} "
                         f"{g.tolerance:>6.0%}  {g.verdict.value}")
        against: dict[tuple[str, str, str], list[str]] = {}
        for r in self.disfavoured():
            against.setdefault((f"{r['provider']}:{r['model']}", r["requirement"], r["language"]), []).append(
                f"{r['communities']} ({r['failed_templates']} of {r['decided_templates']})")
        for g in groups:
            who = against.get((f"{g.provider}:{g.model}", g.requirement, g.language))
            if g.verdict is GroupVerdict.FAILED and who:
                lines.append(f"  {g.requirement[:26]} ({g.language}) failures disfavoured: {', '.join(who[:5])}")
        passed = sum(1 for g in groups if g.verdict is GroupVerdict.PASSED)
        lines.append(f"{passed} of {len(groups)} requirement × model × language passed "
                     "(undet. = undetermined templates; errors = templates whose calls got no answer)")
        return lines


def template_suite(plan: Any) -> TemplateSuite | None:
    """The template suite of a run's plan (:class:`langbite.suites.Plan`), if it has one."""
    suite = plan.suite(NAME)
    return suite if isinstance(suite, TemplateSuite) else None


def template_results(result: Any) -> TemplateResults | None:
    """The template results of a finished run (:class:`langbite.runner.RunResult`), if it had templates."""
    found = result.result(NAME)
    return found if isinstance(found, TemplateResults) else None
