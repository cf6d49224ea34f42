"""``genderbench.probing.evaluator``: ``Evaluator(probe, undetected=None)`` and ``ClosedSetEvaluator``."""

from langbite.probes.evaluators import ClosedSetEvaluator, Evaluator

__all__ = ["ClosedSetEvaluator", "Evaluator"]
