"""LLM services: the one interface the engine calls, over LangChain chat models.

Any ``langchain_core`` :class:`BaseChatModel` can be tested: wrap it in a
:class:`ChatModelService` (or register a provider that builds it). The
service owns generation parameters, so temperature, max tokens and seed
reach the model as the requirements model says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage


@dataclass(frozen=True)
class GenerationParams:
    temperature: float = 0.0
    max_tokens: int = 256
    seed: int = 0


@dataclass(frozen=True)
class Generation:
    text: str
    tokens_in: int = 0
    tokens_out: int = 0


@runtime_checkable
class LLMService(Protocol):
    """What the engine needs from a model under test."""

    provider: str
    model: str
    #: Everything besides provider/model that can change answers (base URL, file hash).
    identity: str
    #: The most requests this service may have in flight (None: no limit of its own).
    max_concurrency: int | None

    async def agenerate(self, prompt: str, params: GenerationParams) -> Generation: ...


ChatModelBuilder = Callable[[GenerationParams], BaseChatModel]


async def close_services(services: Any) -> None:
    """Close every service that holds a connection pool, before its event loop ends."""
    for service in services:
        close = getattr(service, "aclose", None)
        if close is not None:
            await close()


@dataclass
class ChatModelService:
    """An :class:`LLMService` over a LangChain chat model.

    ``build`` makes the chat model for given generation parameters; one model
    is kept per distinct parameter set (repetitions use different seeds).
    """

    provider: str
    model: str
    build: ChatModelBuilder
    identity: str = ""
    max_concurrency: int | None = None
    #: Call the model's own generation method, skipping LangChain's callback and tracing layer
    #: (3.5× less overhead per call). Set False for models that rely on ainvoke-level features.
    lean: bool = True
    _models: dict[GenerationParams, BaseChatModel] = field(default_factory=dict, repr=False)

    @classmethod
    def wrap(cls, chat_model: BaseChatModel, provider: str = "langchain", model: str | None = None,
             max_concurrency: int | None = None) -> ChatModelService:
        """Test an already-built chat model as it is (its own parameters apply)."""
        name = model or getattr(chat_model, "model_name", None) or getattr(chat_model, "model", None)
        return cls(provider, str(name or type(chat_model).__name__), lambda _p: chat_model,
                   max_concurrency=max_concurrency, lean=False)

    def chat_model(self, params: GenerationParams) -> BaseChatModel:
        if params not in self._models:
            self._models[params] = self.build(params)
        return self._models[params]

    async def agenerate(self, prompt: str, params: GenerationParams) -> Generation:
        model = self.chat_model(params)
        messages: list[BaseMessage] = [HumanMessage(content=prompt)]
        message: Any
        if self.lean:
            result = await model._agenerate(messages)
            message = result.generations[0].message
        else:
            message = await model.ainvoke(messages)
        usage = getattr(message, "usage_metadata", None) or {}
        return Generation(
            text=message.text if hasattr(message, "text") else str(message.content),
            tokens_in=int(usage.get("input_tokens", 0) or 0),
            tokens_out=int(usage.get("output_tokens", 0) or 0),
        )


@dataclass
class OpenAIService(ChatModelService):
    """``openai:`` models: ChatOpenAI for generality, the OpenAI SDK client as the engine's hot path.

    The engine's calls go to an ``openai.AsyncOpenAI`` configured as ChatOpenAI
    configures its own (base URL, key, no client-side retries), skipping
    LangChain's message conversion and callbacks; ChatOpenAI itself (1.4 s to
    import) is built only when asked for. On two cores this matches a bare
    SDK loop, where ``ainvoke`` reaches about 80% of it (see bench/). Errors
    are the SDK's own, so retries still see status codes and ``Retry-After``.
    """

    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    _client: Any = field(default=None, repr=False)

    def _sdk(self) -> Any:
        if self._client is None:
            import openai

            self._client = openai.AsyncOpenAI(base_url=self.base_url, api_key=self.api_key, max_retries=0)
        return self._client

    async def aclose(self) -> None:
        """Close the SDK client inside the event loop that used it (not at garbage collection)."""
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def agenerate(self, prompt: str, params: GenerationParams) -> Generation:
        if not self.lean:
            return await super().agenerate(prompt, params)
        response = await self._sdk().chat.completions.create(
            model=self.model, messages=[{"role": "user", "content": prompt}], temperature=params.temperature,
            max_tokens=params.max_tokens, seed=params.seed)
        usage = response.usage
        return Generation(text=response.choices[0].message.content or "",
                          tokens_in=usage.prompt_tokens if usage else 0,
                          tokens_out=usage.completion_tokens if usage else 0)
