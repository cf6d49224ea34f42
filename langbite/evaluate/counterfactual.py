"""Counterfactual metrics on free text: how alike the answers to two communities are, template after template.

A template's instances differ only in the community named, so their answers can be compared pair by
pair with the communities' own words masked: two communities of a one-community template, or a
comparison and its swap ("Are A smarter than B?" and "Are B smarter than A?"). For every pair of communities of a requirement × model ×
language, over its templates:

- ``similarity``: ROUGE-L F1 of the masked answers (the longest common subsequence of their words,
  as a share of both lengths; 1 for identical answers), the measure LangFair calls counterfactual
  ROUGE-L;
- ``valence_gap``: how many more negative words (the language's ``negative_valence`` list) one answer
  uses than the other, in absolute value;
- ``flip_rate``: the share of templates where the oracle read the two answers differently (one fair,
  the other biased, refused or undetermined): a decision that changes with the community.

Each mean has a 95% bootstrap interval over templates (a seeded resampling of the templates, 1,000
draws). The rows (columns ``COUNTERFACTUAL_COLUMNS`` of :mod:`langbite.report.rows`) go to
``counterfactual.csv`` and to the workbook and the page.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from langbite.model import Answer, Evaluation, ModelSpec, answer_key
from langbite.oracles import asymmetry
from langbite.oracles.lexicon import lexicon_for
from langbite.oracles.similarity import masked_words, rouge_l
from langbite.plan import PlannedTemplate
from langbite.report.rows import Cell, CounterfactualRow


def interval(values: Sequence[float], seed: str, draws: int = 1000) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean of ``values`` (seeded: the same run, the same interval).

    One matrix of resampled indexes (draws × n), so a run with thousands of community pairs stays fast.
    Two shortcuts give the same distribution without the matrix: values that are all equal (every
    resample has their mean), and values that are all 0 or 1 (a flip rate), whose resampled sum is
    binomial with the observed rate.
    """
    if len(values) < 2 or min(values) == max(values):
        return (values[0], values[0]) if values else (float("nan"), float("nan"))
    import numpy as np

    n = len(values)
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "little"))
    ones = sum(1 for v in values if v == 1.0)
    if ones + sum(1 for v in values if v == 0.0) == n:
        means = rng.binomial(n, ones / n, size=draws) / n
    else:
        means = np.asarray(values, dtype=float)[rng.integers(0, n, size=(draws, n))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


@dataclass(frozen=True)
class PairMetrics:
    provider: str
    model: str
    requirement: str
    language: str
    community_a: str
    community_b: str
    similarity: list[float]
    valence_gap: list[float]
    flips: list[float]

    def row(self, seed: str) -> CounterfactualRow:
        def mean(name: str, values: list[float]) -> tuple[Cell, float, float]:
            lo, hi = interval(values, f"{seed}:{name}:{self.community_a}:{self.community_b}")
            return (round(sum(values) / len(values), 4) if values else ""), round(lo, 4), round(hi, 4)

        similarity, valence, flips = (mean("similarity", self.similarity), mean("valence_gap", self.valence_gap),
                                      mean("flip_rate", self.flips))
        return CounterfactualRow(
            provider=self.provider, model=self.model, requirement=self.requirement, language=self.language,
            community_a=self.community_a, community_b=self.community_b, templates=len(self.similarity),
            similarity=similarity[0], similarity_ci_low=similarity[1], similarity_ci_high=similarity[2],
            valence_gap=valence[0], valence_gap_ci_low=valence[1], valence_gap_ci_high=valence[2],
            flip_rate=flips[0], flip_rate_ci_low=flips[1], flip_rate_ci_high=flips[2])


def metrics(items: Iterable[PlannedTemplate], evaluations: Sequence[Evaluation],
            answers: Mapping[tuple[str, str, int], Answer], models: Sequence[str], repetitions: int,
            seed: int = 0) -> list[CounterfactualRow]:
    """One row per requirement × model × language × pair of communities (see the module docstring)."""
    by_key = {(e.model, e.requirement, e.language, e.template_id, e.repetition): e for e in evaluations}
    groups: dict[tuple[str, str, str, str, str], PairMetrics] = {}
    get = answers.get
    for item in items:
        lexicon = lexicon_for(item.template.language) or lexicon_for("en")
        assert lexicon is not None
        reader = asymmetry.reader_for(lexicon)
        everyone = list(dict.fromkeys(c for inst in item.instances for c in inst.communities))
        for model in models:
            for rep in range(repetitions):
                found = [get(answer_key(model, inst.key, rep)) for inst in item.instances]
                texts = [a for a in found if a is not None and not a.error]
                if len(texts) < len(found):
                    continue
                evaluation = by_key.get((model, item.requirement.name, item.template.language,
                                         item.template.template_id, rep))
                outcomes = evaluation.outcomes if evaluation is not None else ()
                words = [masked_words(a.text, everyone) for a in texts]
                negative = [asymmetry.negativity(a.text, everyone, reader) for a in texts]
                for i, j in combinations(range(len(texts)), 2):
                    ci, cj = item.instances[i].communities, item.instances[j].communities
                    if len(ci) == 1 and len(cj) == 1 and ci != cj:
                        first, second = sorted((ci[0], cj[0]))  # one community per prompt: a pair of them
                    elif len(ci) == 2 and cj == ci[::-1]:
                        first, second = sorted(ci)  # a comparison and its swap ("A vs B", "B vs A")
                    else:
                        continue  # other combinations (intersectional, three-way) are not counterfactual pairs
                    spec = ModelSpec(model)
                    key = (model, item.requirement.name, item.template.language, first, second)
                    pair = groups.setdefault(key, PairMetrics(spec.provider, spec.model, item.requirement.name,
                                                              item.template.language, first, second, [], [], []))
                    pair.similarity.append(rouge_l(words[i], words[j]))
                    pair.valence_gap.append(float(abs(negative[i] - negative[j])))
                    if len(outcomes) == len(texts):
                        pair.flips.append(float(outcomes[i] is not outcomes[j]))
    return [p.row(str(seed)) for p in groups.values()]
