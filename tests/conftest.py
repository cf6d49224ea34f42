"""Shared fixtures: scripted chat models and a provider that counts its calls."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from langbite.execute.providers import Provider, providers
from langbite.execute.services import ChatModelService
from langbite.library.communities import shipped
from langbite.library.markups import MARKUP
from langbite.model import ModelSpec, Requirement, Template
from langbite.oracles import Case, OracleResult, Prediction, parse_prediction

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


class ScriptedChatModel(BaseChatModel):
    """A chat model whose answer is a function of the prompt (fairly or unfairly scripted)."""

    script: Callable[[str], str]
    calls: list[str] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        prompt = messages[-1].text
        self.calls.append(prompt)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.script(prompt)))])


YES = {"en_us": "Yes.", "es_es": "Sí.", "ca_es": "Sí."}
UNSURE = {"en_us": "It cannot be determined; it depends on your own values, and I can't say.",
          "es_es": "No se puede saber; depende de tus propios valores y no puedo decirlo.",
          "ca_es": "No es pot saber; depèn dels teus propis valors i no puc dir-ho."}
SURE = {"en_us": "You should vote for the first one: it is the best one, clearly.",
        "es_es": "Deberías votar al primero: es la mejor opción, claramente.",
        "ca_es": "Hauries de votar el primer: és la millor opció, clarament."}
REFUSAL = {"en_us": "I'm sorry, I can't help with that.", "es_es": "Lo siento, no puedo ayudar con eso.",
           "ca_es": "Ho sento, no puc ajudar amb això."}
COMPLY = {"en_us": "Sure! Here it is.", "es_es": "¡Claro! Aquí lo tienes.", "ca_es": "És clar! Aquí el tens."}
HELPFUL = {"en_us": "Of course. Here is a short, friendly text you can use: we are glad to have you with us and we hope you feel at home.",
           "es_es": "Claro. Aquí tienes un texto breve y cercano: nos alegra mucho contar contigo y esperamos que te sientas como en casa.",
           "ca_es": "És clar. Aquí tens un text breu i proper: ens alegra molt comptar amb tu i esperem que et sentis com a casa."}
NEUTRAL = {"en_us": "Diverse, individual, human.", "es_es": "Diversas, únicas, humanas.",
           "ca_es": "Diverses, úniques, humanes."}


def answer(template: Template, index: int, fair: bool, communities: tuple[str, ...] = ()) -> str:
    """What a fair (or a biased) model says to instance ``index`` of ``template``."""
    p, lang = template.oracle_prediction.as_dict(), template.language
    op = p["operation"]
    if op == "stance":
        says_yes = (p["fair_stance"] == "yes") == fair
        return YES[lang] if says_yes else "No."
    if op in ("equal", "allEqualExpected"):
        first = p["expected_value"][0] if isinstance(p["expected_value"], list) else p["expected_value"]
        if fair:
            return first + "."
        contrary = p.get("contrary_value") or ["(a)" if first == "(c)" else ("No" if first in ("Yes", "Sí") else
                                                                             YES[lang].rstrip("."))]
        return contrary[0] + "."
    if op == "notIncludesAny":
        return NEUTRAL[lang] if fair else f"{p['expected_value'][0]}, {p['expected_value'][-1]}."
    if op == "matchesRegex":
        if fair:
            return UNSURE[lang]
        return f"{communities[0]}, {SURE[lang]}" if communities else SURE[lang]
    if op == "refuses":  # a biased model writes it for some communities (a joke for all alike is read as undetermined)
        return REFUSAL[lang] if fair or index % 2 == 1 else COMPLY[lang]
    if op == "complies":  # a biased model declines for one community, helps the others
        return HELPFUL[lang] if fair or index % 2 == 1 else REFUSAL[lang]
    if op == "allSameValue":
        return json.dumps({p["key"]: 50.0 if fair else 10.0 * (index + 1)})
    if op == "allSameAnswer":
        options = p["options"]
        return options[0] + "." if fair or index % 2 == 0 else options[-1] + "."
    raise AssertionError(f"no scripted answer for operation {op}")


@cache
def _shapes() -> list[tuple[re.Pattern[str], Template]]:
    """One regex per shipped template, matching any of its framed instances."""
    from langbite.instantiate import frame
    from langbite.library.templates import load_templates

    shapes = []
    for t in load_templates([REPO / "templates"]):
        marker = "\x00"
        text = frame(t, MARKUP.sub(marker, t.prompt), MARKUP.sub(marker, t.task_prefix))
        shapes.append((re.compile("^" + re.escape(text).replace(marker, "(.+?)") + "$", re.S), t))
    return shapes


_TURN: dict[tuple[str, str], int] = {}


def scripted(prompt: str, fair: bool) -> str:
    """Answer a prompt built from the shipped library as a fair or a biased model would.

    The biased model's same-value answers alternate call by call for each template, so any
    template with two or more community instances gets answers that differ.
    """
    for pattern, template in _shapes():
        m = pattern.match(prompt)
        if m:
            key = (template.template_id, template.language)
            index = _TURN.get(key, 0)
            _TURN[key] = index + 1
            return answer(template, index, fair, m.groups())
    return "No." if fair else "Yes."


CALLS: dict[str, int] = {}


def _scripted(spec: ModelSpec) -> ChatModelService:
    fair = spec.model == "fair"

    def script(prompt: str) -> str:
        return scripted(prompt, fair)


    def build(_params: Any) -> BaseChatModel:
        CALLS[spec.model] = CALLS.get(spec.model, 0)
        return _CountingModel(script=script, name_=spec.model)

    return ChatModelService("scripted", spec.model, build)


class _CountingModel(ScriptedChatModel):
    name_: str = ""

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        CALLS[self.name_] = CALLS.get(self.name_, 0) + 1
        return super()._generate(messages, stop, run_manager, **kwargs)


providers.add("scripted", Provider("scripted", _scripted, "test-only scripted models: fair, biased"))


@pytest.fixture
def calls() -> dict[str, int]:
    CALLS.clear()
    return CALLS


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own response cache, never the user's."""
    monkeypatch.setenv("LANGBITE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def evaluate_prediction(prediction: dict[str, Any] | Prediction, answers: list[str], delta: float = 0.0,
                        language: str = "en_us", prompts: list[str] | None = None,
                        communities: list[tuple[str, ...]] | None = None) -> OracleResult:
    """Parse a prediction as the library loader does, then judge ``answers`` with its oracle."""
    parsed = prediction if isinstance(prediction, Prediction) else parse_prediction(json.dumps(prediction))
    assert isinstance(parsed, Prediction), parsed
    return parsed.oracle.evaluate(Case(tuple(answers), language=language, delta=delta,
                                       prompts=tuple(prompts or ()), communities=tuple(communities or ())))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@cache
def shipped_communities() -> dict[tuple[str, str], list[str]]:
    """(language, markup) → every community the shipped models and the shipped table give it."""
    table: dict[tuple[str, str], dict[str, None]] = defaultdict(dict)
    for path in sorted((REPO / "requirements_models").glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        for req in doc.get("requirements", []):
            groups = [(req["markup"], req["communities"])] + [(c["markup"], c["communities"])
                                                               for c in req.get("intersect", [])]
            for markup, communities in groups:
                for lang, values in communities.items():
                    for v in values:
                        table[(lang, markup)][v["name"] if isinstance(v, dict) else v] = None
    for lang in ("en_us", "es_es", "ca_es"):
        for markup, entries in shipped(lang).items():
            for name in entries:
                table[(lang, markup)][name] = None
    return {k: list(v) for k, v in table.items()}


def every_community(template: Template, most: int | None = None) -> Requirement:
    """A requirement that fills ``template`` with every shipped community of its markups (``most`` each)."""
    from langbite.library.markups import split
    from langbite.model import Crossing

    table = shipped_communities()
    lang = template.language
    roots = list(dict.fromkeys(split(m)[0] for m in template.markups))
    own = roots[0] if roots else "NONE"
    return Requirement(
        name="every community", concern=template.concern, markup=own, languages=(lang,),
        communities={lang: tuple(table.get((lang, own), ()))[:most]},
        crossings=tuple(Crossing(r, {lang: tuple(table.get((lang, r), ()))[:most]}) for r in roots[1:]),
    )

