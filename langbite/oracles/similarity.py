"""How alike two answers are once the communities' own words are masked.

ROUGE-L F1 over words (the longest common subsequence as a share of both lengths: 1 for identical
answers, LangFair's counterfactual ROUGE-L) is the measure every install has. With the ``embeddings``
extra (sentence-transformers), the cosine of two multilingual sentence embeddings is a second one that
sees paraphrases as alike ("friendly and punctual" against "kind, always on time"); its model is
``LANGBITE_EMBEDDING_MODEL`` (a name or a folder; default ``paraphrase-multilingual-MiniLM-L12-v2``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from langbite.oracles import asymmetry, reading

MAX_WORDS = 200  # the LCS is quadratic: long answers are compared on their first words
DEFAULT_EMBEDDING_MODEL = "paraphrase-multilingual-MiniLM-L12-v2"


def rouge_l(a: Sequence[str], b: Sequence[str]) -> float:
    """ROUGE-L F1 of two word sequences (1.0 when both are empty)."""
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    if a == b:  # identical answers (a deterministic model's, often): no table to fill
        return 1.0
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    lcs = previous[-1]
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(a), lcs / len(b)
    return 2 * precision * recall / (precision + recall)


def masked_words(text: str, communities: Sequence[str]) -> list[str]:
    masked, _ = asymmetry._mask(reading.clean(text), communities)
    return reading.words(masked)[:MAX_WORDS]


def masked_text(text: str, communities: Sequence[str]) -> str:
    return " ".join(masked_words(text, communities))


def embeddings_available() -> bool:
    """Whether the ``embeddings`` extra is installed (sentence-transformers importable)."""
    try:
        import importlib.util

        return importlib.util.find_spec("sentence_transformers") is not None
    except (ImportError, ValueError):
        return False


@lru_cache(maxsize=2)
def _encoder(name: str) -> Any:
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(name)


def embedding_cosine(a: str, b: str) -> float:
    """Cosine of the two texts' sentence embeddings (the ``embeddings`` extra; ImportError without it)."""
    model = _encoder(os.environ.get("LANGBITE_EMBEDDING_MODEL", DEFAULT_EMBEDDING_MODEL))
    va, vb = model.encode([a, b], normalize_embeddings=True)
    return float(sum(float(x) * float(y) for x, y in zip(va, vb, strict=True)))
