"""Requirements models: what to test, with which communities, models and tolerances."""

from langbite.requirements.loader import load_requirements, parse_requirements

__all__ = ["load_requirements", "parse_requirements"]
