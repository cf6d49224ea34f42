"""``genderbench.probes.gest.gest_metric_calculator``: GEST's metrics (langbite's vectorised calculator)."""

from langbite.probes.gest import GestMetricCalculator

__all__ = ["GestMetricCalculator"]
