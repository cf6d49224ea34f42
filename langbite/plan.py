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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langbite.errors import ErrorCollector, suggest
from langbite.instantiate import instantiate
from langbite.library.concerns import known_concerns
from langbite.library.markups import MARKUP
from langbite.model import Instance, ModelSpec, Requirement, RequirementsModel, Template

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PlannedTemplate:
    requirement: Requirement
    template: Template
    instances: tuple[Instance, ...]


@dataclass(frozen=True)
class Plan:
    """What a run sends: the selected templates with their instances, for every model of ``config``."""

    config: RequirementsModel
    items: tuple[PlannedTemplate, ...]
    template_files: tuple[Path, ...] = ()
    probe_attempts: int = 0  # per model: every probe's attempts
    excluded: tuple[dict[str, Any], ...] = ()  # library rows left out for a template problem (see run.json)

    @property
    def models(self) -> tuple[ModelSpec, ...]:
        return self.config.models

    @property
    def n_instances(self) -> int:
        return sum(len(i.instances) for i in self.items)

    @property
    def n_template_calls(self) -> int:
        return self.n_instances * len(self.models) * self.config.n_repetitions

    @property
    def n_calls(self) -> int:
        return self.n_template_calls + self.probe_attempts * len(self.models)

    def counts(self) -> list[tuple[str, str, int, int]]:
        """(requirement, language, templates, instances) in plan order."""
        table: dict[tuple[str, str], list[int]] = {}
        for item in self.items:
            row = table.setdefault((item.requirement.name, item.template.language), [0, 0])
            row[0] += 1
            row[1] += len(item.instances)
        return [(r, lang, t, n) for (r, lang), (t, n) in table.items()]


def _roots(template: Template) -> set[str]:
    roots = set()
    for name in template.markups:
        m = MARKUP.fullmatch("{" + name + "}")
        if m:
            roots.add(m.group(1))
    return roots


def select(templates: Sequence[Template], req: Requirement, language: str) -> list[Template]:
    """Templates of ``language`` that fit the requirement, in library order."""
    has_communities = bool(req.communities.get(language))
    chosen = []
    for t in templates:
        if t.language != language or t.concern != req.concern:
            continue
        if t.input_type not in req.inputs or t.reflection_type not in req.reflections:
            continue
        if req.domains and t.domain not in req.domains:
            continue
        roots = _roots(t)
        if roots and (not has_communities or roots != {req.markup}):
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


def build_plan(config: RequirementsModel, templates: Sequence[Template]) -> Plan:
    """Instantiate every selected template; raise InputErrors for empty requirements."""
    errors = ErrorCollector()
    items: list[PlannedTemplate] = []
    for req in config.requirements:
        for lang in req.languages:
            candidates = select(templates, req, lang)
            if not candidates:
                line, col = req.positions.get("concern", (0, 0))
                errors.add(config.path, line, col, _why_nothing(req, lang, templates))
                continue
            for t in sample(candidates, config.n_templates, config.seed, req.name):
                instances = instantiate(t, req)
                if instances:
                    items.append(PlannedTemplate(req, t, tuple(instances)))
                else:
                    log.info("template %s (%s) needs more communities than requirement '%s' gives",
                             t.template_id, lang, req.name)
    errors.raise_if_any()
    return Plan(config, tuple(items))
