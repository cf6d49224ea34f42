"""Quality of the shipped template library and example requirements models.

The central check: every row's oracle *discriminates*. A model that answers
each template fairly passes it, and a model that picks the biased option
fails it, for every template, language and shipped requirements model.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, ScriptedChatModel, answer, evaluate_prediction
from langbite.execute.providers import Provider, providers
from langbite.execute.services import ChatModelService
from langbite.instantiate import instantiate
from langbite.library.concerns import known_concerns
from langbite.library.templates import load_templates
from langbite.model import GroupVerdict, ModelSpec, Template, Verdict
from langbite.plan import select
from langbite.requirements import load_requirements
from langbite.runner import RunOptions, prepare, run
from langbite.suites.templates import template_results, template_suite

LIBRARY = load_templates([REPO / "templates"])
MODELS = sorted(p for p in (REPO / "requirements_models").glob("*.json") if not p.name.endswith(".schema.json")
                and load_requirements(p).requirements)  # the decision audits' models have no template requirement
LANGS = ("en_us", "es_es", "ca_es")

REQUIREMENTS = [(path.name, req) for path in MODELS for req in load_requirements(path).requirements]


def covering(template: Template) -> list[tuple[str, Any]]:
    """(model file, requirement) pairs of the shipped models that cover this template's concern."""
    return [(name, req) for name, req in REQUIREMENTS
            if req.concern == template.concern and template.language in req.languages]


def test_size_and_coverage() -> None:
    assert len(LIBRARY) >= 300
    concerns = {"sexism", "racism", "xenophobia", "ageism", "lgtbiqphobia", "religion", "politics", "ableism"}
    cells: dict[tuple[str, str], set[tuple[str, str, str]]] = defaultdict(set)
    for t in LIBRARY:
        family = "same" if t.oracle.value == "same value" else "expected"
        cells[(t.concern, t.language)].add((t.input_type.value, t.reflection_type.value, family))
    for concern in concerns:
        for lang in LANGS:
            kinds = cells[(concern, lang)]
            assert {k[0] for k in kinds} == {"constrained", "verbose"}, (concern, lang)
            assert {k[1] for k in kinds} == {"observational", "utopian"}, (concern, lang)
            if concern != "politics":  # political statements have no community to compare
                assert {k[2] for k in kinds} == {"same", "expected"}, (concern, lang)


def test_every_row_has_a_source_and_known_markups() -> None:
    for t in LIBRARY:
        assert t.source, f"{t.path}:{t.line}: no source"
        assert t.concern in known_concerns()


def test_same_ids_in_every_language_with_the_same_oracle() -> None:
    by_lang = {lang: {t.template_id: t for t in LIBRARY if t.language == lang} for lang in LANGS}
    exceptions = json.loads((REPO / "templates" / "untranslated.json").read_text())["ids"]
    for lang in LANGS:
        missing = set(by_lang["en_us"]) ^ set(by_lang[lang])
        assert missing <= set(exceptions.get(lang, [])), (lang, sorted(missing))
    for pid, en in by_lang["en_us"].items():
        for lang in LANGS[1:]:
            other = by_lang[lang].get(pid)
            if other is None:
                continue
            assert (other.concern, other.input_type, other.reflection_type, other.oracle, other.markups) == \
                   (en.concern, en.input_type, en.reflection_type, en.oracle, en.markups), (pid, lang)
            assert other.oracle_prediction.operation == en.oracle_prediction.operation, (pid, lang)
            assert other.prompt != en.prompt, f"{pid} is not translated into {lang}"


def test_every_template_instantiates_with_every_covering_model() -> None:
    checked = 0
    for t in LIBRARY:
        for model_name, req in covering(t):
            if t not in select([t], req, t.language):
                continue  # another markup or input/reflection type than this requirement's
            for inst in instantiate(t, req):
                assert "{" not in inst.prompt and "}" not in inst.text, (model_name, t.template_id, inst.prompt)
                assert "<G" not in inst.prompt
                checked += 1
    assert checked > 1000


@pytest.mark.parametrize("lang", LANGS)
def test_every_oracle_discriminates(lang: str) -> None:
    """For every row: fair answers pass, biased answers fail."""
    for t in (t for t in LIBRARY if t.language == lang):
        reqs = [r for _, r in covering(t) if t in select([t], r, lang)]
        if not reqs:
            continue
        instances = instantiate(t, reqs[0])
        fair = evaluate_prediction(t.oracle_prediction, [answer(t, i.index, True, i.communities) for i in instances],
                                   reqs[0].delta, lang, [i.prompt for i in instances], [i.communities for i in instances])
        assert fair.verdict is Verdict.PASSED, (t.template_id, lang, fair.reason)
        if len(instances) > 1 or t.oracle_prediction.operation not in ("allSameValue", "allSameAnswer", "complies"):
            biased = evaluate_prediction(t.oracle_prediction,
                                         [answer(t, i.index, False, i.communities) for i in instances],
                                         reqs[0].delta, lang, [i.prompt for i in instances],
                                         [i.communities for i in instances])
            assert biased.verdict is Verdict.FAILED, (t.template_id, lang, biased.reason)


NEGATED_YES = {"en_us": ["Absolutely not.", "Of course not.", "Certainly not.", "Definitely not, never."],
               "es_es": ["Por supuesto que no.", "Claro que no.", "Desde luego que no.", "Totalmente en desacuerdo."],
               "ca_es": ["Per descomptat que no.", "És clar que no.", "Evidentment que no.", "Gens d'acord."]}


def test_negated_answers_never_pass_a_yes_template() -> None:
    """'Absolutely not' must not match the expected value 'Absolutely'."""
    checked = 0
    for t in LIBRARY:
        if t.oracle_prediction.as_dict().get("fair_stance") != "yes":
            continue
        for negation in NEGATED_YES[t.language]:
            result = evaluate_prediction(t.oracle_prediction, [negation], language=t.language)
            assert result.verdict is Verdict.FAILED, (t.template_id, t.language, negation)
            checked += 1
    assert checked > 0


def _oracle_provider(fair: bool, lookup: dict[str, tuple[Template, Any]]) -> Callable[[ModelSpec], Any]:
    def script(prompt: str) -> str:
        template, inst = lookup[prompt]
        return answer(template, inst.index, fair, inst.communities)

    def build(spec: ModelSpec) -> ChatModelService:
        return ChatModelService("oracle", spec.model, lambda _p: ScriptedChatModel(script=script))

    return build


@pytest.mark.parametrize("model_path", MODELS, ids=lambda p: p.stem)
def test_smoke_run_of_each_example_model(model_path: Path, tmp_path: Path) -> None:
    lookup: dict[str, tuple[Template, Any]] = {}
    providers.add("oracle", Provider("oracle", lambda s: _oracle_provider(s.model == "fair", lookup)(s),
                                     "test-only oracle-aware scripted models"))
    try:
        plan = prepare(model_path, RunOptions(models=["oracle:fair", "oracle:biased"]))
        templates = template_suite(plan)
        assert templates is not None
        lookup.update({inst.prompt: (item.template, inst) for item in templates.items for inst in item.instances})
        result = run(plan, tmp_path / "run", RunOptions(progress=False, use_cache=False))
    finally:
        providers.remove("oracle")
    verdicts: dict[str, set[GroupVerdict]] = defaultdict(set)
    results = template_results(result)
    assert results is not None
    for g in results.groups():
        verdicts[g.model].add(g.verdict)
    assert verdicts["fair"] == {GroupVerdict.PASSED}
    assert verdicts["biased"] == {GroupVerdict.FAILED}
    requirements = {r.name for r in plan.config.requirements}
    assert {g.requirement for g in results.groups() if g.model == "biased"} == requirements


REFUSAL = {"en_us": "I'm sorry, but I can't help with that.", "es_es": "Lo siento, pero no puedo ayudarte con eso.",
           "ca_es": "Ho sento, però no et puc ajudar amb això."}
CANNOT_TELL = {"en_us": "Cannot be determined.", "es_es": "No se puede determinar.", "ca_es": "No es pot determinar."}
ALWAYS_YES = {"en_us": "Yes.", "es_es": "Sí.", "ca_es": "Sí."}
REASON = {"en_us": "I cannot judge people", "es_es": "No puedo juzgar a personas", "ca_es": "No puc jutjar persones"}


def _degenerate(kind: str, template: Template, rng: Any) -> str:
    """One answer of a model that always refuses, always cannot tell, always says yes, or picks at random."""
    p, lang = template.oracle_prediction.as_dict(), template.language
    key = p.get("key") if p["operation"] in ("allSameValue", "valueInRange") else None
    if kind == "refuses":  # and answers -1 to every JSON request, as the library allows
        return json.dumps({key: -1, "reasoning": REASON[lang]}) if key else REFUSAL[lang]
    if kind == "cannot tell":
        return CANNOT_TELL[lang]
    if kind == "always yes":
        return ALWAYS_YES[lang]
    if key:
        return json.dumps({key: rng.randint(0, 100)})
    return rng.choice([ALWAYS_YES[lang], "No.", "(a)", "(b)", "(c)", *(o + "." for o in p.get("options", []))])


@pytest.mark.parametrize("kind", ["refuses", "cannot tell", "always yes", "random"])
@pytest.mark.parametrize("lang", LANGS)
def test_a_degenerate_model_passes_few_templates(kind: str, lang: str) -> None:
    """A model that says the same thing to everything (or anything at all) must not look fair.

    It passes at most 40% of each language's templates; the rest are Failed, Refused or
    Undetermined, none of which counts toward a pass rate as a pass.
    """
    import random

    from conftest import every_community

    rng = random.Random(f"{kind}:{lang}")
    verdicts: dict[str, int] = defaultdict(int)
    for t in (t for t in LIBRARY if t.language == lang):
        instances = instantiate(t, every_community(t, most=4))
        answers = [_degenerate(kind, t, rng) for _ in instances]
        result = evaluate_prediction(t.oracle_prediction, answers, 0.0, lang, [i.prompt for i in instances],
                                     [i.communities for i in instances])
        verdicts[result.verdict.value] += 1
    total = sum(verdicts.values())
    assert verdicts["Passed"] <= 0.4 * total, (kind, lang, dict(verdicts))


DOMAIN_MODELS = {"hiring_assistant": ("hiring", {"religion", "sexism", "racism", "xenophobia", "ageism", "ableism"}),
                 "healthcare_chatbot": ("healthcare", {"lgtbiqphobia", "sexism", "racism", "ageism", "religion"}),
                 "tutoring_assistant": ("education", {"xenophobia", "sexism", "racism", "ableism", "politics"}),
                 "lending_assistant": ("lending", {"sexism", "racism", "xenophobia", "ageism", "ableism"}),
                 "content_moderation": ("content_moderation", {"religion", "lgtbiqphobia", "racism", "politics"})}


@pytest.mark.parametrize("name", sorted(DOMAIN_MODELS))
def test_a_domain_model_tests_its_domain_and_can_clear_its_tolerance(name: str) -> None:
    """At least 80% of its templates come from its domain, it covers the concerns such a project must
    test, and a model that passes every answer gets a 95% interval above each tolerance."""
    from langbite.evaluate.stats import wilson

    domain, concerns = DOMAIN_MODELS[name]
    suite = template_suite(prepare(REPO / "requirements_models" / f"{name}.json"))
    assert suite is not None
    plan = suite.plan
    in_domain = sum(1 for item in plan.items if item.template.domain == domain)
    assert in_domain >= 0.8 * len(plan.items), (in_domain, len(plan.items))
    assert concerns <= {r.concern for r in plan.config.requirements}
    per_group: dict[tuple[str, str], int] = defaultdict(int)
    for item in plan.items:
        per_group[(item.requirement.name, item.template.language)] += plan.config.n_repetitions
    for req in plan.config.requirements:
        for lang in req.languages:
            n = per_group[(req.name, lang)]
            low, _ = wilson(n, n)
            assert low >= req.tolerance, (req.name, lang, n, low)
