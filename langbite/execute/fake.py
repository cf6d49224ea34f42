"""``fake:TEXT``: a LangChain chat model that answers every prompt with TEXT.

For dry runs of a pipeline and for CI. It is natively async, so it measures
the harness and not a thread-pool hop (langchain-core's fake models run their
synchronous code in an executor for every call).
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class FixedAnswerChatModel(BaseChatModel):
    answer: str = "No."

    @property
    def _llm_type(self) -> str:
        return "fixed-answer"

    def _result(self) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.answer))])

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        return self._result()

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: AsyncCallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        return self._result()
