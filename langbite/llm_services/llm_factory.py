"""``factory``: LangBiTe's registry of model builders, shared with langbite's model resolution.

A builder is any callable that returns a service; register it under a key and
the key works in a requirements model's ``aiModels``::

    from langbite.llm_services.llm_factory import factory

    factory.register_builder("MyModel", MyServiceBuilder())

``factory.create(key, **config)`` calls the builder as LangBiTe does. For a
built-in key (``OpenAIGPT4o``) it returns a service whose ``execute_prompt``
makes one call through langbite's provider.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from langbite.execute.factories import factories
from langbite.llm_services.llm_service import LLMService


class LLMFactory:
    """Keys → builders. Registration is shared: a key registered here resolves in every run."""

    def register_builder(self, key: str, builder: Callable[..., Any]) -> None:
        """Register ``builder`` (a callable returning a service) under ``key``; a later one replaces it."""
        if not callable(builder):
            raise TypeError(f"a builder must be callable (a function or an object with __call__), "
                            f"not {type(builder).__name__}")
        if key in factories:
            factories.remove(key)
        factories.add(key, builder)

    def create(self, key: str, **kwargs: Any) -> Any:
        """The service for ``key``: its builder called with ``kwargs``, or a built-in key's service."""
        if key in factories:
            return factories.get(key)(**kwargs)
        from langbite.execute.providers import langbite_keys

        if key in langbite_keys():
            return BuiltinService(key)
        raise ValueError(key)


class BuiltinService(LLMService):
    """A built-in model key used the LangBiTe way: each ``execute_prompt`` is one call, run to its end."""

    def __init__(self, key: str) -> None:
        from langbite.execute.providers import build_service
        from langbite.model import ModelSpec

        super().__init__()
        self._service = build_service(ModelSpec(key))
        self.provider, self.model = self._service.provider, self._service.model

    def execute_prompt(self, prompt: str) -> str:
        return asyncio.run(self._once(prompt))

    async def _once(self, prompt: str) -> str:
        from langbite.execute.services import close_services
        from langbite.model import GenerationParams

        defaults = GenerationParams()
        params = GenerationParams(defaults.temperature if self.temperature is None else self.temperature,
                                  self.tokens or defaults.max_tokens, defaults.seed)
        try:
            return (await self._service.agenerate(prompt, params)).text
        finally:  # the client belongs to this call's event loop
            await close_services([self._service])


#: The one factory, as LangBiTe's ``llm_factory.factory``.
factory = LLMFactory()
