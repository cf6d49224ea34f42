"""Fairness metrics of a decision audit, each with a bootstrap interval over cases.

Per group, over the cases' own prompts (the decisions a deployment would make):

- **selection rate**: the share of decided cases given the positive decision;
- **impact ratio**: the group's selection rate over the most-selected group's (the group most selected
  at the point estimate, kept as the reference in every resample). The four-fifths rule
  (US EEOC Uniform Guidelines; the impact ratios New York City's Local Law 144 bias audits publish)
  flags a group whose ratio is below 0.8. ``impact_ratio`` is the lowest group's;
- **statistical parity difference** (``spd``): the largest gap between two groups' selection rates;
- with the correct decision known: **TPR, FPR, FNR, FOR, FDR** and **accuracy** per group, and each
  one's gap (highest minus lowest group); ``equalized_odds`` is the larger of the TPR and FPR gaps.

Across the counterfactual prompts (every case sent once per group, nothing else changed):

- **flip rate** per pair of groups: the share of cases, decided under both groups, whose decision
  differs. ``flip_rate`` is the worst pair's.

Refused and undetermined answers are counted apart (per group) and left out of every rate. Intervals
resample cases with all their prompts (a case's counterfactual versions stay together), with the
same vectorised bootstrap as the probes: one matrix product per metric for 1,000 resamples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from langbite.decisions.reading import Decision
from langbite.probes.stats import Weights, bootstrap, ratio

#: Metrics computed per group when the correct decision is known.
ERROR_RATES = ("tpr", "fpr", "fnr", "for", "fdr", "accuracy")


@dataclass(frozen=True)
class Outcomes:
    """The decisions of one model on an audit: per case, under each group (NaN: not decided)."""

    groups: tuple[str, ...]
    own: np.ndarray  # (N,) index of each case's own group
    decided: np.ndarray  # (N, G) 1 positive, 0 negative, NaN refused / undetermined / not sent
    truth: np.ndarray | None  # (N,) 1/0, or None without a truth column
    refused: np.ndarray  # (N, G) bool
    undetermined: np.ndarray  # (N, G) bool (sent, answered, no decision read; or no answer)


def outcomes(groups: tuple[str, ...], own: list[str], decisions: dict[tuple[int, str], Decision],
             truth: list[bool | None] | None) -> Outcomes:
    """Arrange the decisions read per (case, group) into arrays."""
    index = {g: j for j, g in enumerate(groups)}
    n, g = len(own), len(groups)
    decided = np.full((n, g), np.nan)
    refused = np.zeros((n, g), dtype=bool)
    undetermined = np.zeros((n, g), dtype=bool)
    for (case, group), decision in decisions.items():
        j = index[group]
        if decision is Decision.POSITIVE:
            decided[case, j] = 1.0
        elif decision is Decision.NEGATIVE:
            decided[case, j] = 0.0
        elif decision is Decision.REFUSED:
            refused[case, j] = True
        else:
            undetermined[case, j] = True
    t = None if truth is None else np.array([np.nan if v is None else float(v) for v in truth])
    return Outcomes(groups, np.array([index[x] for x in own]), decided, t, refused, undetermined)


def _spread(columns: list[np.ndarray]) -> np.ndarray:
    """Highest minus lowest of per-group values (NaN if any group's value is undefined)."""
    stacked = np.column_stack(columns)
    spread: np.ndarray = stacked.max(axis=1) - stacked.min(axis=1)
    return spread


class Calculator:
    """Every metric of an audit for a matrix of case weights (one row per resample).

    Impact ratios are taken against ``reference``, the most-selected group of the point estimate, in every
    resample: re-choosing the most-selected group per resample would put the ratio of two equally treated
    groups below 1 in nearly every resample, and its interval would exclude the estimate itself.
    """

    def __init__(self, o: Outcomes, reference: int | None = None) -> None:
        self.o = o
        self.reference = reference
        n, g = o.decided.shape
        own_decision = o.decided[np.arange(n), o.own]  # each case under its own group
        self.columns: list[np.ndarray] = []
        self.names: list[str] = []

        def add(name: str, vector: np.ndarray) -> None:
            self.names.append(name)
            self.columns.append(np.nan_to_num(vector, nan=0.0))

        for j, group in enumerate(o.groups):
            mine = o.own == j
            det = mine & ~np.isnan(own_decision)
            d = np.where(det, own_decision, 0.0)
            add(f"{group}|decided", det.astype(float))
            add(f"{group}|selected", d)
            if o.truth is not None:
                y = np.where(det & ~np.isnan(o.truth), o.truth, np.nan)
                known = det & ~np.isnan(o.truth)
                add(f"{group}|known", known.astype(float))
                add(f"{group}|tp", np.where(known, d * y, 0.0))
                add(f"{group}|pos", np.where(known, y, 0.0))
                add(f"{group}|fp", np.where(known, d * (1 - y), 0.0))
                add(f"{group}|neg", np.where(known, 1 - y, 0.0))
                add(f"{group}|pred_pos", np.where(known, d, 0.0))
                add(f"{group}|pred_neg", np.where(known, 1 - d, 0.0))
                add(f"{group}|fn", np.where(known, (1 - d) * y, 0.0))
                add(f"{group}|correct", np.where(known, (d == y).astype(float), 0.0))
        self.pairs = list(combinations(range(g), 2))
        for a, b in self.pairs:
            both = ~np.isnan(o.decided[:, a]) & ~np.isnan(o.decided[:, b])
            flip = both & (o.decided[:, a] != o.decided[:, b])
            add(f"{a}-{b}|both", both.astype(float))
            add(f"{a}-{b}|flip", flip.astype(float))
        self.matrix = np.column_stack(self.columns)
        self.at = {name: i for i, name in enumerate(self.names)}

    def __call__(self, weights: Weights) -> dict[str, np.ndarray]:
        sums = weights @ self.matrix

        def col(name: str) -> np.ndarray:
            column: np.ndarray = sums[:, self.at[name]]
            return column

        out: dict[str, np.ndarray] = {}
        groups = self.o.groups
        rates = {g: ratio(col(f"{g}|selected"), col(f"{g}|decided")) for g in groups}
        best = rates[groups[self.reference]] if self.reference is not None else \
            np.column_stack(list(rates.values())).max(axis=1)
        for g in groups:
            out[f"selection_rate|{g}"] = rates[g]
            out[f"impact_ratio|{g}"] = ratio(rates[g], best)
        ratios = np.column_stack([out[f"impact_ratio|{g}"] for g in groups])
        out["impact_ratio"] = ratios.min(axis=1)
        out["spd"] = _spread(list(rates.values()))
        if self.o.truth is not None:
            for g in groups:
                out[f"tpr|{g}"] = ratio(col(f"{g}|tp"), col(f"{g}|pos"))
                out[f"fpr|{g}"] = ratio(col(f"{g}|fp"), col(f"{g}|neg"))
                out[f"fnr|{g}"] = ratio(col(f"{g}|fn"), col(f"{g}|pos"))
                out[f"for|{g}"] = ratio(col(f"{g}|fn"), col(f"{g}|pred_neg"))
                out[f"fdr|{g}"] = ratio(col(f"{g}|fp"), col(f"{g}|pred_pos"))
                out[f"accuracy|{g}"] = ratio(col(f"{g}|correct"), col(f"{g}|known"))
            for rate in ERROR_RATES:
                out[f"{rate}_gap"] = _spread([out[f"{rate}|{g}"] for g in groups])
            out["equalized_odds"] = np.fmax(out["tpr_gap"], out["fpr_gap"])
        if self.pairs:
            flips = []
            for a, b in self.pairs:
                flip = ratio(col(f"{a}-{b}|flip"), col(f"{a}-{b}|both"))
                out[f"flip_rate|{groups[a]} / {groups[b]}"] = flip
                flips.append(flip)
            stacked = np.column_stack(flips)
            out["flip_rate"] = np.where(np.isnan(stacked).all(axis=1), np.nan, np.nanmax(
                np.where(np.isnan(stacked), -np.inf, stacked), axis=1))
        return out


@dataclass(frozen=True)
class AuditMetrics:
    """Point estimates and 95% intervals of every metric, and the per-group counts."""

    values: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # group → cases, decided, refused, undetermined


def measure(o: Outcomes, cycles: int = 1000, seed: int = 0, confidence: float = 0.95) -> AuditMetrics:
    """Every metric of :class:`Calculator` at the point (all weights 1) and its bootstrap interval."""
    n = len(o.own)
    point = {k: float(v[0]) for k, v in Calculator(o)(np.ones((1, n))).items()}
    selection = [point[f"selection_rate|{g}"] for g in o.groups]
    reference = None if all(math.isnan(x) for x in selection) else int(np.nanargmax(selection))
    intervals = bootstrap(Calculator(o, reference), n, cycles, confidence, seed) if n else {}
    counts = {}
    for j, g in enumerate(o.groups):
        mine = o.own == j
        counts[g] = {"cases": int(mine.sum()), "decided": int((mine & ~np.isnan(o.decided[:, j])).sum()),
                     "refused": int((mine & o.refused[:, j]).sum()),
                     "undetermined": int((mine & o.undetermined[:, j]).sum())}
    return AuditMetrics(point, {k: intervals.get(k, (math.nan, math.nan)) for k in point}, counts)
