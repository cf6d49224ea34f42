"""``genderbench.probing.probe``: ``Probe`` with GenderBench's defaults and result shapes, and ``status``.

:class:`GenderBenchResults` is the whole adaptation, on top of langbite's
:class:`langbite.probes.probe.Probe` (one framework):

- defaults: intervals fitted as GenderBench fits them (``ci_method="normal"``),
  ``log_strategy="after"``, and no undetected rates unless the calculator is
  decorated with ``@MetricCalculator.filter_undetected``;
- ``metrics``: ``(low, high)`` per metric when ``calculate_cis`` is on, the
  plain values otherwise (langbite keeps both in ``probe.scores``);
- ``marks``: ``{metric: {"mark_value", "metric_value", "description",
  "harm_types", "mark_ranges"}}``, marked with GenderBench's rule (the best
  band the interval overlaps).
"""

from __future__ import annotations

from typing import Any, ClassVar

from langbite.probes.items import ProbeStatus
from langbite.probes.probe import LogStrategy
from langbite.probes.probe import Probe as _Probe
from langbite.probes.stats import CiMethod

status = ProbeStatus
"""GenderBench's lifecycle enum: ``status.NEW`` … ``status.FINISHED``."""


class GenderBenchResults(_Probe):
    """GenderBench's defaults and the shapes of its ``metrics`` and ``marks``."""

    reports_undetected: ClassVar[bool] = False
    default_ci_method: ClassVar[CiMethod] = "normal"
    default_log_strategy: ClassVar[LogStrategy] = "after"
    default_seed: ClassVar[int] = 123  # GenderBench's default random_seed

    @property
    def metrics(self) -> dict[str, Any]:
        if self.calculate_cis and self.scores.intervals:
            return {name: self.scores.intervals[name] for name in self.scores.intervals}
        return dict(self.scores.metrics)

    @property
    def marks(self) -> dict[str, Any]:
        return self.calculate_marks() if self.status is ProbeStatus.FINISHED else {}

    def calculate_marks(self) -> dict[str, dict[str, Any]]:
        return {md.metric_name: md.prepare_mark_output(self) for md in self.mark_definitions}


class Probe(GenderBenchResults):
    """Subclass it as in GenderBench: wire an evaluator and a calculator, implement ``_create_probe_items``."""


__all__ = ["GenderBenchResults", "Probe", "status"]
