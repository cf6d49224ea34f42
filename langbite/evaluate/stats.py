"""Confidence intervals for pass rates, and how they sit against a tolerance.

A pass rate from n templates is a binomial proportion; its 95% interval is
the Wilson score interval, which stays inside [0, 1] and behaves well for
small n and for rates near 0 or 1 (unlike the normal approximation).
"""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # standard normal quantile for a two-sided 95% interval


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of successes/n; (nan, nan) when n is 0."""
    if n <= 0:
        return math.nan, math.nan
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def against_tolerance(low: float, high: float, tolerance: float) -> str:
    """'above', 'below' or 'across': is the verdict statistically clear?"""
    if math.isnan(low):
        return ""
    if low >= tolerance:
        return "above"
    if high < tolerance:
        return "below"
    return "across"


def overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return not (a[1] < b[0] or b[1] < a[0])
