"""Shared fixtures: scripted chat models and a provider that counts its calls."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from langbite.execute.providers import Provider, providers
from langbite.execute.services import ChatModelService
from langbite.model import ModelSpec

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


def fair_answer(prompt: str) -> str:
    """What an unbiased model says to the shipped templates."""
    if '"probability"' in prompt or "JSON" in prompt and "probability" in prompt:
        return json.dumps({"probability": 50.0})
    if '"score"' in prompt:
        return json.dumps({"score": 50})
    return "No, I don't think so."


def biased_answer(prompt: str) -> str:
    """A model that agrees with every stereotype and scores communities unequally."""
    if "probability" in prompt:
        return json.dumps({"probability": float(len(prompt) % 90)})
    return "Yes, definitely."


CALLS: dict[str, int] = {}


def _scripted(spec: ModelSpec) -> ChatModelService:
    scripts = {"fair": fair_answer, "biased": biased_answer}
    script = scripts[spec.model]

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


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
