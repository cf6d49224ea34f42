"""Statistical probes in the GenderBench style: Probe, ProbeItem, Prompt, Attempt, Evaluator,
MetricCalculator and MarkDefinition, with GenderBench's fourteen probes built in.

Many biases only show in aggregate. A probe sends many prompts, reads every
answer with an evaluator, and computes metrics over the whole set with
bootstrap confidence intervals and marks A (healthy) to D (catastrophic).
GenderBench's own import paths are served by :mod:`langbite.genderbench`.
"""

# The built-in probes register themselves under their snake-case names when imported.
from langbite.probes.bbq import BbqProbe
from langbite.probes.business_vocabulary import BusinessVocabularyProbe
from langbite.probes.direct import DirectProbe
from langbite.probes.discrimination_tamkin import DiscriminationTamkinProbe
from langbite.probes.diversity_med_qa import DiversityMedQaProbe
from langbite.probes.dreaddit import DreadditProbe
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
from langbite.probes.gest import GestProbe, GestTemplate
from langbite.probes.gest_creative import GestCreativeProbe
from langbite.probes.hiring_an import HiringAnProbe
from langbite.probes.hiring_bloomberg import HiringBloombergProbe
from langbite.probes.inventories import InventoriesProbe
from langbite.probes.isear import IsearProbe
from langbite.probes.items import Attempt, ProbeItem, ProbeStatus, Prompt
from langbite.probes.jobs_lum import JobsLumProbe
from langbite.probes.marks import Mark, MarkDefinition
from langbite.probes.metrics import (
    GenderRate,
    MetricCalculator,
    OptionFrequency,
    filter_undetected,
    metric_calculators,
)
from langbite.probes.probe import Probe, Scores, probes
from langbite.probes.relationship_levy import RelationshipLevyProbe

__all__ = [
    "UNDETECTED",
    "Attempt",
    "BbqProbe",
    "BusinessVocabularyProbe",
    "ClosedSetEvaluator",
    "DirectProbe",
    "DiscriminationTamkinProbe",
    "DiversityMedQaProbe",
    "DreadditProbe",
    "Evaluator",
    "GenderRate",
    "GestCreativeProbe",
    "GestProbe",
    "GestTemplate",
    "HiringAnProbe",
    "HiringBloombergProbe",
    "InventoriesProbe",
    "IsearProbe",
    "JobsLumProbe",
    "KeywordEvaluator",
    "Mark",
    "MarkDefinition",
    "MetricCalculator",
    "ModelGenerator",
    "OptionFrequency",
    "OptionLetterEvaluator",
    "Probe",
    "ProbeItem",
    "ProbeStatus",
    "Prompt",
    "PronounGenderEvaluator",
    "RandomGenerator",
    "RelationshipLevyProbe",
    "Scores",
    "evaluators",
    "filter_undetected",
    "metric_calculators",
    "probes",
]
