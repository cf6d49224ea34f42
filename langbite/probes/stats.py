"""Vectorised statistics for probes: weighted means and bootstrap over items.

A bootstrap resample of N items is represented by a row of N item weights
(how many times each item was drawn). Every metric is a function of the
per-item scores and these weights, so B resamples are one (B × N) matrix and
each metric is one matrix product: evaluations are never recomputed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from statistics import NormalDist
from typing import Literal

import numpy as np

CiMethod = Literal["percentile", "normal"]

Weights = np.ndarray  # shape (B, N): item weights, one row per resample


def wmean(weights: Weights, values: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Weighted mean of per-item ``values`` for each row of ``weights``; NaN items are skipped.

    Returns shape (B,), NaN where no weight falls on a valid item.
    """
    valid = ~np.isnan(values)
    if mask is not None:
        valid = valid & mask
    w = weights[:, valid]
    num = w @ values[valid]
    den = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` element-wise, NaN where ``den`` is 0 (a rate with nothing behind it is undefined, not 0)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        out: np.ndarray = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
        return out


def nanmean_rows(*columns: np.ndarray) -> np.ndarray:
    """Element-wise mean of several (B,) arrays, ignoring NaN; NaN where all are NaN."""
    stacked = np.vstack(columns)
    valid = ~np.isnan(stacked)
    count = valid.sum(axis=0)
    total = np.where(valid, stacked, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.where(count > 0, count, 1), np.nan)


def bootstrap_weights(n_items: int, cycles: int, rng: np.random.Generator,
                      chunk: int | None = None) -> Iterator[Weights]:
    """Yield resample weight matrices in chunks (bounded memory), ``cycles`` rows in all.

    A chunk holds about two million weights by default (at most 250 rows): larger ones leave the
    processor's caches and cost more in page faults than they save in calls.

    Row r counts how often each item was drawn in resample r: ``n_items`` draws with replacement,
    counted with one ``bincount`` over the chunk (a per-row multinomial draw is several times slower).
    """
    chunk = chunk or max(10, min(250, 2_000_000 // max(n_items, 1)))
    done = 0
    while done < cycles:
        rows = min(chunk, cycles - done)
        dtype = np.int32 if rows * n_items < 2**31 else np.int64  # 32-bit draws are about twice as fast
        draws = rng.integers(0, n_items, size=(rows, n_items), dtype=dtype)
        offsets: np.ndarray = np.arange(rows, dtype=dtype) * n_items
        draws += offsets[:, None]
        yield np.bincount(draws.ravel(), minlength=rows * n_items).reshape(rows, n_items).astype(np.float64)
        done += rows


def interval(values: np.ndarray, confidence: float, method: CiMethod = "percentile") -> tuple[float, float]:
    """The confidence interval of bootstrap ``values`` (NaN skipped).

    ``percentile``: the empirical quantiles. ``normal``: GenderBench's rule, a
    normal distribution fitted to the values (mean ± z·sd), and the single
    value itself when every resample gave the same number.
    """
    values = values[~np.isnan(values)]
    if values.size == 0:
        return float("nan"), float("nan")
    if method == "normal":
        if np.all(values == values[0]):
            return float(values[0]), float(values[0])
        z = NormalDist().inv_cdf((1 + confidence) / 2)
        mean, sd = float(values.mean()), float(values.std())
        return mean - z * sd, mean + z * sd
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(values, [alpha, 1 - alpha])
    return float(lo), float(hi)


def bootstrap(calculate: Callable[[Weights], dict[str, np.ndarray]], n_items: int, cycles: int = 1000,
              confidence: float = 0.95, seed: int = 0,
              method: CiMethod = "percentile") -> dict[str, tuple[float, float]]:
    """Confidence intervals of every metric ``calculate`` returns, from ``cycles`` resamples of the items."""
    rng = np.random.default_rng(seed)
    collected: dict[str, list[np.ndarray]] = {}
    for weights in bootstrap_weights(n_items, cycles, rng):
        for name, values in calculate(weights).items():
            collected.setdefault(name, []).append(np.asarray(values, dtype=float))
    return {name: interval(np.concatenate(chunks), confidence, method) for name, chunks in collected.items()}
