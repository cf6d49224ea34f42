"""``LLMService``: the base class of a LangBiTe-style model service.

Extend it, set ``provider`` and ``model`` (they name the model in reports), and
implement ``execute_prompt(self, prompt: str) -> str``; then register a builder
with :data:`langbite.llm_services.llm_factory.factory`. The engine sets
``temperature`` and ``tokens`` from the requirements model before the first call
and runs ``execute_prompt`` in a thread pool of the service's own, at most
``max_concurrency`` calls at a time (4 unless the subclass says otherwise; set it
to 1 for a client that is not thread-safe).
"""

from __future__ import annotations


class LLMService:
    """A model under test, answering one prompt at a time with ``execute_prompt``."""

    #: Calls the engine may run at once in this service's threads.
    max_concurrency: int = 4

    def __init__(self) -> None:
        self._provider: str | None = None
        self._model: str | None = None
        self._temperature: float | None = None
        self._tokens: int | None = None

    @property
    def provider(self) -> str | None:
        """Who serves the model (for example ``OpenAI``)."""
        return getattr(self, "_provider", None)

    @provider.setter
    def provider(self, value: str | None) -> None:
        self._provider = value

    @property
    def model(self) -> str | None:
        """The model's name at its provider."""
        return getattr(self, "_model", None)

    @model.setter
    def model(self, value: str | None) -> None:
        self._model = value

    @property
    def temperature(self) -> float | None:
        """Sampling temperature, set by the engine from the requirements model."""
        return getattr(self, "_temperature", None)

    @temperature.setter
    def temperature(self, value: float | None) -> None:
        self._temperature = value

    @property
    def tokens(self) -> int | None:
        """The most tokens an answer may have, set by the engine from the requirements model."""
        return getattr(self, "_tokens", None)

    @tokens.setter
    def tokens(self, value: int | None) -> None:
        self._tokens = value

    def execute_prompt(self, prompt: str) -> str:
        """The model's answer to ``prompt``; subclasses implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement execute_prompt(self, prompt: str) -> str")
