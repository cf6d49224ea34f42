"""LangBiTe's extension path: model keys served by factories whose services answer ``execute_prompt``.

A LangBiTe user adds a model by subclassing ``LLMService`` (importable from
``langbite.llm_services.llm_service``), implementing a synchronous
``execute_prompt(prompt) -> str`` and registering a *builder* (any callable
that returns the service) under a key: in code with
``factory.register_builder(key, builder)``, or from an installed package
through the ``langbite.factories`` entry-point group. The key then works in
``aiModels`` (or as ``factory:KEY`` anywhere a model spec is accepted).

Builders are called as LangBiTe calls them, with its configuration as keyword
arguments (:func:`langbite_config`); a builder gets those it names, or all of
them when it takes ``**kwargs``. A builder *class* (what an entry point often
names) is instantiated first, then called. What the builder returns is adapted
to the engine: a synchronous service runs in a thread pool of its own, sized
by its ``max_concurrency`` attribute (default :data:`DEFAULT_THREADS`), so a
slow ``execute_prompt`` never blocks the event loop or another model.
"""

from __future__ import annotations

import asyncio
import inspect
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from langbite.errors import InputErrors
from langbite.execute.services import ChatModelService, Generation, InvalidReply, ChatService
from langbite.model import GenerationParams
from langbite.registry import Registry
from langbite.secrets import env_first

FACTORY = "factory"  # provider name of factory-built services: factory:KEY
DEFAULT_THREADS = 4  # execute_prompt calls in flight per service, unless it sets max_concurrency

#: LangBiTe model keys → builders (callables returning a service); plugins use the ``langbite.factories`` group.
factories: Registry[Any] = Registry("model factory key", group="langbite.factories")


def langbite_config() -> dict[str, str | None]:
    """The keyword arguments LangBiTe passes to every builder, read from the environment."""
    return {"openai_api_key": env_first("API_KEY_OPENAI", "OPENAI_API_KEY"),
            "huggingface_api_key": env_first("API_KEY_HUGGINGFACE", "HUGGINGFACEHUB_API_TOKEN", "HF_TOKEN"),
            "replicate_api_key": env_first("API_KEY_REPLICATE", "REPLICATE_API_TOKEN"),
            "ollama_url": env_first("OLLAMA_URL", "OLLAMA_HOST")}


def _call(builder: Any, config: dict[str, Any]) -> Any:
    """Call ``builder`` with the part of ``config`` it accepts (all of it when it takes ``**kwargs``)."""
    try:
        parameters = inspect.signature(builder).parameters.values()
    except (TypeError, ValueError):  # a builtin or C callable: give it everything, as LangBiTe does
        return builder(**config)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return builder(**config)
    names = {p.name for p in parameters if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    return builder(**{k: v for k, v in config.items() if k in names})


def _is_service(obj: Any) -> bool:
    return callable(getattr(obj, "execute_prompt", None)) or callable(getattr(obj, "agenerate", None))


def build_from_factory(key: str) -> ChatService:
    """The engine's service for a factory key: call its builder, then adapt what it returns."""
    builder = factories.get(key)
    config = langbite_config()
    built = _call(builder, config)
    if not _is_service(built) and callable(built) and isinstance(builder, type):
        built = _call(built, config)  # the entry point named a builder class: its instance is the builder
    return adapt(built, key)


def adapt(obj: Any, key: str) -> ChatService:
    """Whatever a builder returned, as an engine service (or one clear error)."""
    if isinstance(obj, ChatService):  # already speaks the engine's protocol
        return obj
    if callable(getattr(obj, "execute_prompt", None)):
        return SyncService.of(obj, key)
    from langchain_core.language_models import BaseLanguageModel

    if isinstance(obj, BaseLanguageModel):
        return ChatModelService.wrap(obj, provider=FACTORY, model=key)
    raise InputErrors.single(key, f"its builder returned {type(obj).__name__}, which has no "
                             "execute_prompt(prompt) method; return an LLMService (or a LangChain chat model)")


def _text_attribute(obj: Any, name: str) -> str:
    try:
        value = getattr(obj, name, None)
    except AttributeError:  # LangBiTe's properties raise when never set
        value = None
    return str(value) if value not in (None, "") else ""


@dataclass
class SyncService:
    """A LangBiTe-style service (synchronous ``execute_prompt``) as an engine service.

    Calls run in this service's own thread pool. Temperature and tokens are set
    on the service as LangBiTe sets them (``service.temperature``,
    ``service.tokens``) before the first call with new values. A call that
    times out is abandoned by the engine, but its thread runs until
    ``execute_prompt`` returns.
    """

    service: Any
    key: str
    provider: str = FACTORY
    model: str = ""
    identity: str = ""
    max_concurrency: int | None = DEFAULT_THREADS
    _pool: ThreadPoolExecutor | None = field(default=None, repr=False)
    _settings: tuple[float, int] | None = field(default=None, repr=False)

    @classmethod
    def of(cls, service: Any, key: str) -> SyncService:
        limit = getattr(service, "max_concurrency", None)
        threads = limit if isinstance(limit, int) and not isinstance(limit, bool) and limit >= 1 else DEFAULT_THREADS
        return cls(service, key, provider=_text_attribute(service, "provider") or FACTORY,
                   model=_text_attribute(service, "model") or key, identity=f"{FACTORY}:{key}",
                   max_concurrency=threads)

    def _configure(self, params: GenerationParams) -> None:
        settings = (params.temperature, params.max_tokens)
        if settings == self._settings:
            return
        for name, value in (("temperature", params.temperature), ("tokens", params.max_tokens)):
            try:
                setattr(self.service, name, value)
            except AttributeError:  # a read-only property: the service keeps its own setting
                pass
        self._settings = settings

    async def agenerate(self, prompt: str, params: GenerationParams) -> Generation:
        self._configure(params)
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.max_concurrency or DEFAULT_THREADS,
                                            thread_name_prefix=f"langbite-{self.key}")
        if params.system_prompt:  # execute_prompt takes one text: the system prompt goes first, as a paragraph
            prompt = f"{params.system_prompt}\n\n{prompt}"
        text = await asyncio.get_running_loop().run_in_executor(self._pool, self.service.execute_prompt, prompt)
        if not isinstance(text, str):
            raise InvalidReply(f"execute_prompt returned {type(text).__name__}, not text")
        return Generation(text=text)

    async def aclose(self) -> None:
        """Let the pool's threads end; calls still running (timed out) finish on their own."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
