"""LLM services: the one interface the engine calls, over LangChain chat models.

Any ``langchain_core`` ``BaseChatModel`` can be tested: wrap it in a
:class:`ChatModelService` (or register a provider that builds it). The
service owns generation parameters, so temperature, max tokens and seed
reach the model as the requirements model says. LangChain is imported only
when a chat model is actually called, so commands that call no model start fast.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from langbite.model import GenerationParams

_TITLE = re.compile(r"(?is)<title[^>]*>(.*?)</title>")
__all__ = ["ChatModelService", "Generation", "GenerationParams", "InvalidReply", "ChatService", "OpenAIService"]


@dataclass(frozen=True)
class Generation:
    text: str
    tokens_in: int = 0
    tokens_out: int = 0


class InvalidReply(Exception):
    """The server answered, but not with an answer (no choices, null content, not JSON, an HTML page).

    Retried like a transient fault; never recorded or cached as an answer.
    """


@runtime_checkable
class ChatService(Protocol):
    """What the engine needs from a model under test."""

    provider: str
    model: str
    #: Everything besides provider/model that can change answers (base URL, file hash).
    identity: str
    #: The most requests this service may have in flight (None: no limit of its own).
    max_concurrency: int | None

    async def agenerate(self, prompt: str, params: GenerationParams) -> Generation: ...


ChatModelBuilder = Callable[[GenerationParams], Any]  # returns a langchain_core BaseChatModel


async def close_services(services: Any) -> None:
    """Close every service that holds a connection pool, before its event loop ends."""
    for service in services:
        close = getattr(service, "aclose", None)
        if close is not None:
            await close()


def _text(message: Any) -> str:
    content = getattr(message, "content", None)
    if content is None:
        raise InvalidReply("the model returned no content")
    text = message.text if hasattr(message, "text") else content
    if not isinstance(text, str):
        text = str(text)
    return text


@dataclass
class ChatModelService:
    """An :class:`ChatService` over a LangChain chat model (or a text-completion ``BaseLLM``).

    ``build`` makes the chat model for given generation parameters; one model
    is kept per distinct parameter set (repetitions use different seeds). Calls
    go through the chat model's public ``ainvoke``.
    """

    provider: str
    model: str
    build: ChatModelBuilder
    identity: str = ""
    max_concurrency: int | None = None
    _models: dict[GenerationParams, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def wrap(cls, chat_model: Any, provider: str = "langchain", model: str | None = None,
             max_concurrency: int | None = None) -> ChatModelService:
        """Test an already-built LangChain chat model as it is (its own temperature and tokens apply)."""
        name = model or getattr(chat_model, "model_name", None) or getattr(chat_model, "model", None)
        return cls(provider, str(name or type(chat_model).__name__), lambda _p: chat_model,
                   max_concurrency=max_concurrency)

    def chat_model(self, params: GenerationParams) -> Any:
        if params not in self._models:
            self._models[params] = self.build(params)
        return self._models[params]

    async def agenerate(self, prompt: str, params: GenerationParams) -> Generation:
        from langchain_core.language_models import BaseLLM
        from langchain_core.messages import HumanMessage, SystemMessage

        model = self.chat_model(params)
        if isinstance(model, BaseLLM):  # a text-completion model (Replicate's): one text, system prompt first
            text = await model.ainvoke(f"{params.system_prompt}\n\n{prompt}" if params.system_prompt else prompt)
            if not isinstance(text, str):
                raise InvalidReply(f"the model returned {type(text).__name__}, not text")
            return Generation(text=text)
        messages: list[Any] = [SystemMessage(content=params.system_prompt)] if params.system_prompt else []
        message = await model.ainvoke([*messages, HumanMessage(content=prompt)])
        usage = getattr(message, "usage_metadata", None) or {}
        return Generation(text=_text(message), tokens_in=int(usage.get("input_tokens", 0) or 0),
                          tokens_out=int(usage.get("output_tokens", 0) or 0))


def html_page(body: str) -> str | None:
    """``'an HTML page (502 Bad Gateway)'`` for an HTML body, with its title when it has one; None for non-HTML."""
    head = body.lstrip()[:2048].lower()
    if not head.startswith(("<!doctype html", "<html", "<head", "<body")):
        return None
    match = _TITLE.search(body[:4096])
    title = " ".join(match.group(1).split())[:120] if match else ""
    return f"an HTML page ({title})" if title else "an HTML page"


def _not_json(body: str) -> str:
    page = html_page(body)
    if page:
        return f"the server sent {page} instead of an answer"
    snippet = " ".join(body[:80].split())
    return f"the server's reply is not JSON (it sent {snippet!r})" if snippet else "the server sent an empty reply"


@dataclass
class OpenAIService(ChatModelService):
    """``openai:`` models: the OpenAI SDK client as the engine's hot path, ChatOpenAI when asked for.

    The engine's calls go to an ``openai.AsyncOpenAI`` configured as ChatOpenAI
    configures its own (base URL, key, no client-side retries), skipping
    LangChain's message conversion and callbacks; ChatOpenAI itself (1.4 s to
    import) is built only when :meth:`chat_model` is asked for. A call is the
    SDK's ``post`` with the body read as bytes and parsed by
    :func:`read_completion`: the same request, headers and errors as
    ``chat.completions.create`` (retries still see status codes and
    ``Retry-After``), at two thirds of its cost per call.
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

    # --- batch API (langbite.execute.batch) ---
    def request_body(self, prompt: str, params: GenerationParams) -> dict[str, Any]:
        """The body of one chat completion, as a line of a batch file: what :meth:`agenerate` sends."""
        return {"model": self.model, "messages": [*_system(params), {"role": "user", "content": prompt}],
                "temperature": params.temperature, "max_tokens": params.max_tokens, "seed": params.seed}

    async def upload_batch_file(self, path: Any) -> str:
        with open(path, "rb") as f:
            return str((await self._sdk().files.create(file=f, purpose="batch")).id)

    async def create_batch(self, file_id: str) -> str:
        batch = await self._sdk().batches.create(input_file_id=file_id, endpoint="/v1/chat/completions",
                                                 completion_window="24h")
        return str(batch.id)

    async def batch_status(self, batch_id: str) -> dict[str, Any]:
        batch = await self._sdk().batches.retrieve(batch_id)
        return {"status": batch.status, "output_file_id": batch.output_file_id, "error_file_id": batch.error_file_id}

    async def batch_file_text(self, file_id: str) -> str:
        return str((await self._sdk().files.content(file_id)).text)

    async def agenerate(self, prompt: str, params: GenerationParams) -> Generation:
        # the SDK's request for a path of one's choosing (auth, base URL, timeouts, errors with status codes
        # and headers, as for chat.completions.create), with the body read here: building and validating
        # the SDK's typed request and response objects cost more than the rest of the call
        body = await self._sdk().post("/chat/completions", cast_to=bytes, body=self.request_body(prompt, params))
        return read_completion(body)


def _system(params: GenerationParams) -> list[dict[str, str]]:
    return [{"role": "system", "content": params.system_prompt}] if params.system_prompt else []


def read_completion(body: bytes) -> Generation:
    """A chat completion's answer and token counts, or :class:`InvalidReply` saying what came instead."""
    try:
        data = json.loads(body)
    except ValueError as exc:  # not JSON (UnicodeDecodeError included): an HTML page, a cut body
        text = body.decode("utf-8", errors="replace")
        if html_page(text) or not text.strip():
            raise InvalidReply(_not_json(text)) from None
        raise InvalidReply(f"the server's reply is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InvalidReply(f"the server's reply is not a chat completion (it is a JSON {type(data).__name__})")
    if "choices" not in data and isinstance(data.get("error"), dict | str):
        error = data["error"]
        message = error.get("message", "") if isinstance(error, dict) else error
        raise InvalidReply(f"the server answered with an error: {' '.join(str(message).split())[:200]}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise InvalidReply("the server returned no choices")
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if content is None:
        raise InvalidReply("the model returned no content (null)")
    if not isinstance(content, str):
        raise InvalidReply(f"the model's content is a JSON {type(content).__name__}, not text")
    usage = data.get("usage")
    if not isinstance(usage, dict):
        usage = {}
    return Generation(text=content, tokens_in=_count(usage.get("prompt_tokens")),
                      tokens_out=_count(usage.get("completion_tokens")))


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
