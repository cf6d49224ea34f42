"""GenderBench's ``genderbench.utils.math``: the NaN-aware helpers its metric calculators use."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable

import numpy as np


def nanmean(values: Iterable[float]) -> float:
    """The mean of the values that are not NaN; NaN for no values or only NaN (without a warning)."""
    kept = list(values)
    if not kept:
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN input: NaN is the answer, not a warning
        return float(np.nanmean(np.asarray(kept, dtype=float)))


def zero_div(a: float, b: float) -> float:
    """``a / b``, or NaN when ``b`` is 0."""
    return math.nan if b == 0 else a / b
