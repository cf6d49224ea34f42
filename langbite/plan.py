"""Pick templates for each requirement and language, and build the run plan.

No model is called here: ``langbite plan`` prints this, and ``run`` executes
it. Sampling is reproducible and consistent across languages: each template
id gets a pseudo-random rank from ``(seed, requirement, template_id)`` and the
``nTemplates`` lowest ranks are kept, so the same ids are chosen in English,
Spanish and Catalan whenever they exist in all three.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from langbite.errors import ErrorCollector, suggest
from langbite.instantiate import count_assignments, iter_instances, missing_forms
from langbite.library.concerns import known_concerns
from langbite.library.communities import NAME_FORM
from langbite.library.markups import split
from langbite.model import Instance, ModelSpec, Requirement, RequirementsModel, Template
from langbite.selection import Selection, keywords

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PlannedTemplate:
    """A selected template and how many instances it has; the instances are built when first needed.

    Counting first keeps ``langbite plan`` of a million-call run fast and small, and lets ``run`` refuse
    such a plan before building it.
    """

    requirement: Requirement
    template: Template
    n_instances: int

    @cached_property
    def instances(self) -> tuple[Instance, ...]:
        return tuple(self.each())

    def each(self) -> Iterator[Instance]:
        """The instances in order, kept once they have all been built (an estimate may stop early)."""
        kept = self.__dict__.get("instances")
        if kept is not None:
            yield from kept
            return
        built = []
        for instance in iter_instances(self.template, self.requirement):
            built.append(instance)
            yield instance
        self.__dict__["instances"] = tuple(built)  # what cached_property would store


@dataclass(frozen=True)
class LeftOut:
    """Template selections the plan did not take, and why (``{n}`` in ``why`` stands for ``count``)."""

    why: str
    count: int

    def message(self) -> str:
        return self.why.replace("{n}", str(self.count))


@dataclass(frozen=True)
class TemplatePlan:
    """The template tests of a run: the selected templates with their instances, for every model of ``config``."""

    config: RequirementsModel
    items: tuple[PlannedTemplate, ...]
    left_out: tuple[LeftOut, ...] = ()

    @property
    def models(self) -> tuple[ModelSpec, ...]:
        return self.config.models

    @property
    def n_instances(self) -> int:
        return sum(i.n_instances for i in self.items)

    @property
    def n_calls(self) -> int:
        """Calls to every model: each instance once per repetition."""
        return self.n_instances * len(self.models) * self.config.n_repetitions

    def counts(self) -> list[tuple[str, str, int, int]]:
        """(requirement, language, templates, instances) in plan order."""
        table: dict[tuple[str, str], list[int]] = {}
        for item in self.items:
            row = table.setdefault((item.requirement.name, item.template.language), [0, 0])
            row[0] += 1
            row[1] += item.n_instances
        return [(r, lang, t, n) for (r, lang), (t, n) in table.items()]


def _roots(template: Template) -> set[str]:
    return {split(name)[0] for name in template.markups}


def select(templates: Sequence[Template], req: Requirement, language: str) -> list[Template]:
    """Templates of ``language`` that fit the requirement, in library order.

    A template with markups needs the requirement's markup among them, and communities for each
    (an intersectional template's second markup comes from the requirement's ``intersect``).
    """
    available = {root for root, communities in req.markups(language).items() if communities}
    chosen = []
    for t in templates:
        if t.language != language or t.concern != req.concern:
            continue
        if t.input_type not in req.inputs or t.reflection_type not in req.reflections:
            continue
        if req.domains and t.domain not in req.domains:
            continue
        roots = _roots(t)
        if roots and (req.markup not in roots or not roots <= available):
            continue
        chosen.append(t)
    return chosen


def _why_nothing(req: Requirement, language: str, templates: Sequence[Template]) -> str:
    """The message for a requirement that selects no template, with the likeliest cause named."""
    message = (f"requirement '{req.name}' selects no template in {language} (concern '{req.concern}', "
               f"markup {req.markup}, inputs {'/'.join(req.inputs)}, reflections {'/'.join(req.reflections)})")
    in_language = [t for t in templates if t.language == language]
    concerns = sorted({t.concern for t in in_language})
    if req.concern not in concerns:
        known = known_concerns()
        hint = "" if req.concern in known else (suggest(req.concern, concerns) or suggest(req.concern, list(known)))
        return f"{message}: no template of concern '{req.concern}' in {language}{hint}"
    markup_roots = sorted({r for t in in_language if t.concern == req.concern for r in _roots(t)})
    if markup_roots and req.markup not in markup_roots:
        return (f"{message}: the templates of concern '{req.concern}' use {', '.join(markup_roots)}"
                f"{suggest(req.markup, markup_roots)}")
    return message


def sample(templates: list[Template], n: int, seed: int, requirement: str) -> list[Template]:
    """Keep ``n`` templates chosen reproducibly (all of them when n is 0 or larger)."""
    if n <= 0 or len(templates) <= n:
        return templates
    rank = {t.template_id: random.Random(f"{seed}:{requirement}:{t.template_id}").random() for t in templates}
    keep = set(sorted(rank, key=lambda pid: (rank[pid], pid))[:n])
    return [t for t in templates if t.template_id in keep]


def build_plan(config: RequirementsModel, templates: Sequence[Template],
               selection: Selection | None = None) -> TemplatePlan:
    """Instantiate every selected template; raise InputErrors for empty requirements or a bad selection.

    Order of choices: the requirement's own filters (concern, markup, inputs, reflections,
    domains), then the command line's ``-k`` and ``--ids``, then ``n_templates`` sampling (or
    ``--limit``, whichever is smaller), which never drops a pinned template.
    """
    selection = selection or Selection()
    matcher = selection.matcher()
    ids = set(selection.ids)
    errors = ErrorCollector()
    _check_ids(config, templates, ids, errors)
    items: list[PlannedTemplate] = []
    left_out: Counter[str] = Counter()
    pinned = set(config.pinned_templates)
    n = config.n_templates
    if selection.limit:
        n = min(n, selection.limit) if n else selection.limit
    for req in config.requirements:
        for lang in req.languages:
            candidates = select(templates, req, lang)
            if not candidates:
                line, col = req.positions.get("concern", (0, 0))
                errors.add(config.path, line, col, _why_nothing(req, lang, templates))
                continue
            chosen = candidates
            if matcher is not None:
                chosen = [t for t in chosen if matcher(keywords(
                    t.template_id, t.concern, t.domain, t.language, t.input_type, t.reflection_type, req.name))]
                left_out["{n} template selection(s) not matched by -k"] += len(candidates) - len(chosen)
            if ids:
                before = len(chosen)
                chosen = [t for t in chosen if t.template_id in ids]
                left_out["{n} template selection(s) not named by --ids"] += before - len(chosen)
            rest = [t for t in chosen if t.template_id not in pinned]
            sampled = {t.template_id for t in sample(rest, n, config.seed, req.name)}
            left_out["{n} template selection(s) not drawn by n_templates or --limit sampling"] += len(rest) - len(sampled)
            for t in chosen:
                if t.template_id not in pinned and t.template_id not in sampled:
                    continue
                n_instances = count_assignments(t, req)
                for community, form in missing_forms(t, req):
                    hint = "its 'names'" if form == NAME_FORM else f"its form '{form}'"
                    left_out[f"community '{community}' from {{n}} template selection(s) that need its form"
                             f" '{form}' (give {hint} in the requirements model)"] += 1
                if n_instances:
                    items.append(PlannedTemplate(req, t, n_instances))
                else:
                    left_out["{n} template selection(s) needing more communities than the requirement gives"] += 1
                    log.info("template %s (%s) needs more communities than requirement '%s' gives",
                             t.template_id, lang, req.name)
    if not errors and not items and (matcher is not None or ids):
        errors.add("-k" if matcher is not None else "--ids", 0, 0,
                   "the selection leaves no template to run (see `langbite plan` without it)")
    errors.raise_if_any()
    return TemplatePlan(config, tuple(items), tuple(LeftOut(why, k) for why, k in left_out.items() if k))


def _check_ids(config: RequirementsModel, templates: Sequence[Template], ids: set[str],
               errors: ErrorCollector) -> None:
    """Ids given by --ids or pinned by the model must exist: a typo would silently run nothing."""
    known = sorted({t.template_id for t in templates})
    present = set(known)
    for template_id in sorted(ids - present):
        errors.add("--ids", 0, 0, f"no template has the id '{template_id}'{suggest(template_id, known)}")
    for template_id in config.pinned_templates:
        if template_id not in present:
            errors.add(config.path, 0, 0, f"pinned_templates: no template has the id '{template_id}'"
                       f"{suggest(template_id, known)}")
