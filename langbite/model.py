"""Plain data of the pipeline: frozen dataclasses, checked once at the edge.

library → requirements → instantiate → execute → evaluate → report. Each stage
takes these immutable records and returns new ones; later code never sees the
raw CSV rows or JSON dicts they came from. The keys that join the stages
(instance, answer, evaluation) are defined here, on the types, and nowhere else.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, fields
from enum import IntEnum, StrEnum
from functools import cached_property
from typing import Any


class InputType(StrEnum):
    """Whether the prompt constrains the answer (options offered) or not."""

    CONSTRAINED = "constrained"
    VERBOSE = "verbose"


class ReflectionType(StrEnum):
    """Observational asks how the world is; utopian asks how it should be."""

    OBSERVATIONAL = "observational"
    UTOPIAN = "utopian"


class Domain(StrEnum):
    """Where a template's situation is set (the ``domain`` column); requirements may select by it."""

    HIRING = "hiring"
    LENDING = "lending"
    HOUSING = "housing"
    HEALTHCARE = "healthcare"
    INSURANCE = "insurance"
    EDUCATION = "education"
    JUSTICE = "justice"
    PUBLIC_SERVICES = "public_services"
    CONTENT_MODERATION = "content_moderation"
    CUSTOMER_SUPPORT = "customer_support"
    GENERAL = "general"


class OracleFamily(StrEnum):
    """LangBiTe's two oracle kinds (the ``oracle`` column of a template library)."""

    EXPECTED_VALUE = "expected value"
    SAME_VALUE = "same value"


class Outcome(StrEnum):
    """What one answer says, read before any template verdict."""

    FAIR = "fair"  # says what a fair answer says
    BIASED = "biased"  # matches an explicitly biased answer
    REFUSED = "refused"  # declines to answer
    UNDETERMINED = "undetermined"  # none of these: empty, garbled, off-topic, an echo, contradictory


class Verdict(StrEnum):
    """The verdict on one template for one model, language and repetition."""

    PASSED = "Passed"  # every answer fair, and treated alike
    FAILED = "Failed"  # an answer biased, or the communities treated unequally
    REFUSED = "Refused"  # refusals (and fair answers) only
    UNDETERMINED = "Undetermined"  # nothing shown biased, but not enough to say it is fair
    ERROR = "Error"  # a call failed after every retry (transport, never the model's words)


class GroupVerdict(StrEnum):
    """The verdict on a group of templates (a requirement × model × language), from its pass rate."""

    PASSED = "Passed"  # the pass rate meets the tolerance
    FAILED = "Failed"  # the pass rate is below the tolerance
    INCONCLUSIVE = "Inconclusive"  # too many undetermined templates, or an interval across the tolerance
    NOT_EVALUATED = "Not evaluated"  # no template ran


class RefusalPolicy(StrEnum):
    """How a requirement counts Refused templates."""

    SEPARATE = "separate"  # reported apart, out of the pass rate (default)
    ACCEPTABLE = "acceptable"  # a refusal is a fair answer
    UNACCEPTABLE = "unacceptable"  # a refusal fails the template


class VerdictRule(StrEnum):
    """How a requirement's verdict is read from its pass rate."""

    POINT = "point"  # the pass rate against the tolerance
    INTERVAL = "interval"  # the 95% interval: above the tolerance passes, below fails, across is inconclusive


class ExitCode(IntEnum):
    """The exit codes of ``langbite run``, ``report`` and ``probe``, like a test runner's (the only list of them)."""

    PASSED = 0  # every requirement passed
    FAILED = 1  # some requirement failed: bias found (compare: something that passed no longer passes)
    BAD_INPUT = 2  # bad input or usage: one line per problem (PATH:LINE:COL: message); no model was called
    INCONCLUSIVE = 3  # nothing failed, but some requirement could not be decided
    NOT_EVALUATED = 4  # could not evaluate: most calls got no answer (outage, wrong URL, expired key)
    BUDGET = 5  # stopped at the budget; the run folder resumes with a higher one
    SYSTEM = 6  # the machine failed the run (a full disk, an unwritable folder); nothing read as bias
    TAMPERED = 7  # verify: the run folder does not match its manifest (a file changed, went missing or was added)
    INTERNAL = 70  # a bug in langbite (the traceback is shown); never read as bias
    INTERRUPTED = 130  # Ctrl-C; every answer so far is saved and the printed command resumes
    PIPE = 141  # the reader of the output left (``langbite … | head``); everything was written

    @property
    def meaning(self) -> str:
        return _EXIT_MEANINGS[self]


_EXIT_MEANINGS = {
    ExitCode.PASSED: "every requirement passed",
    ExitCode.FAILED: "some requirement failed (bias found), or compare found a regression",
    ExitCode.BAD_INPUT: "bad input or usage (one line per problem: PATH:LINE:COL: message); no model was called",
    ExitCode.INCONCLUSIVE: "inconclusive: nothing failed, but some requirement could not be decided",
    ExitCode.NOT_EVALUATED: "could not evaluate: most calls got no answer (outage, wrong URL, expired key)",
    ExitCode.BUDGET: "stopped at the budget (--budget); the run folder resumes",
    ExitCode.SYSTEM: "the system failed the run (disk full, folder not writable, out of memory); nothing is "
                     "read as bias and the run folder resumes",
    ExitCode.TAMPERED: "verify: the run folder does not match its manifest (a file changed, went missing or was "
                       "added, or the signature does not match)",
    ExitCode.INTERNAL: "internal error: a bug in langbite (the traceback is shown; please report it)",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C); the run folder resumes with the command printed",
    ExitCode.PIPE: "the output's reader closed the pipe (langbite … | head); everything was written",
}


def digest(*parts: Any, size: int = 16) -> str:
    """A short, stable hex digest of JSON-serialisable parts (for keys, never for security)."""
    text = json.dumps(parts, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:size]


@dataclass(frozen=True)
class GenerationParams:
    """What is sent with every prompt, resolved once per run from the requirements model or the CLI."""

    temperature: float = 0.0
    max_tokens: int = 256
    seed: int = 0
    system_prompt: str = ""  # sent as the system message before every prompt; "" sends none

    def for_repetition(self, repetition: int) -> GenerationParams:
        """Repetition r samples with seed + r, so repeated answers are distinct samples."""
        return GenerationParams(self.temperature, self.max_tokens, self.seed + repetition, self.system_prompt)


@dataclass(frozen=True)
class Prediction:
    """A template's oracle prediction, parsed once: the oracle it selects and the JSON text it was read from.

    ``oracle`` is a :class:`langbite.oracles.Oracle` (parsed by :func:`langbite.oracles.parse_prediction`);
    it is typed loosely here because the data model imports nothing of langbite's.
    """

    oracle: Any
    text: str

    @property
    def operation(self) -> str:
        return str(self.oracle.operation)

    def as_dict(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.text)
        return value


@dataclass(frozen=True)
class Template:
    """One row of the template library."""

    template_id: str
    concern: str  # canonical concern key, see library.concerns
    input_type: InputType
    reflection_type: ReflectionType
    task_prefix: str
    prompt: str
    output_formatting: str
    oracle: OracleFamily
    oracle_prediction: Prediction = field(hash=False, compare=False)
    language: str
    source: str = ""
    path: str = ""
    line: int = 0
    markups: tuple[str, ...] = ()  # distinct markups in order of first appearance
    domain: Domain = Domain.GENERAL
    id_column: int = 1  # the template_id column's position in the file, for messages


@dataclass(frozen=True)
class Community:
    """One community of a requirement in one language, with what the requirements model adds to it."""

    name: str
    forms: tuple[tuple[str, str], ...] = ()  # (form, text) given by the requirements model
    names: tuple[str, ...] = ()  # first names standing for the community


@dataclass(frozen=True)
class Crossing:
    """Another markup a requirement crosses with its own, for intersectional templates."""

    markup: str
    communities: dict[str, tuple[str, ...]] = field(hash=False, compare=False)
    details: dict[str, dict[str, Community]] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class Requirement:
    """One ethical requirement of a requirements model."""

    name: str
    concern: str  # canonical concern key
    markup: str
    languages: tuple[str, ...]
    communities: dict[str, tuple[str, ...]] = field(hash=False, compare=False)
    tolerance: float = 0.9
    delta: float = 0.0
    inputs: tuple[InputType, ...] = (InputType.CONSTRAINED, InputType.VERBOSE)
    reflections: tuple[ReflectionType, ...] = (
        ReflectionType.OBSERVATIONAL,
        ReflectionType.UTOPIAN,
    )
    rationale: str = ""
    obligations: tuple[str, ...] = ()  # what the requirement provides evidence for (the audit pack groups by them)
    refusals: RefusalPolicy = RefusalPolicy.SEPARATE
    verdict_by: VerdictRule = VerdictRule.POINT
    max_undetermined: float = 0.25  # above this share of undetermined (or errored) templates: Inconclusive
    domains: tuple[Domain, ...] = ()  # () selects every domain
    # Community objects of the model (forms, names), by language and community; strings have none.
    details: dict[str, dict[str, Community]] = field(default_factory=dict, hash=False, compare=False)
    crossings: tuple[Crossing, ...] = ()  # other markups crossed with this one (intersectional templates)
    names_per_community: int = 1  # first names per community for {MARKUP:name} templates
    # Where the requirement's fields are written (field → (line, column)), for messages about it.
    positions: dict[str, tuple[int, int]] = field(default_factory=dict, hash=False, compare=False)

    def markups(self, language: str) -> dict[str, tuple[str, ...]]:
        """markup root → the communities that fill it in ``language``: its own, then each crossing's."""
        out = {self.markup: self.communities.get(language, ())}
        for crossing in self.crossings:
            out[crossing.markup] = crossing.communities.get(language, ())
        return out


@dataclass(frozen=True)
class HttpEndpoint:
    """An application's own HTTP API as the model under test (the ``http`` provider).

    ``body`` is the request's JSON as written in the requirements model, where the strings ``{prompt}`` and
    ``{system_prompt}`` stand for the prompt and the system prompt; ``answer`` is the path of the answer in the
    JSON reply (``reply.text``, ``choices.0.message.content``); header values may name environment variables as
    ``${NAME}``, read when the run starts and never written anywhere.
    """

    url: str
    answer: str
    method: str = "POST"
    headers: tuple[tuple[str, str], ...] = ()
    body: str = '{"prompt": "{prompt}"}'  # JSON text


@dataclass(frozen=True)
class ModelSpec:
    """A model to test: ``provider:model`` plus per-model options.

    ``spec`` is the one place a spec string is split; :meth:`format` the one place it is joined.
    A spec may end in ``#name``: the same model under a named system prompt, reported and
    journaled as a model of its own so that prompts compare side by side like models.
    """

    spec: str
    base_url: str | None = None
    concurrency: int | None = None
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None
    system_prompt: str | None = None
    http: HttpEndpoint | None = None  # the application's API, for the http provider

    @property
    def base_spec(self) -> str:
        """The spec without its ``#name`` (what the provider is asked for)."""
        m = _VARIANT.search(self.spec)
        return self.spec[: m.start()] if m else self.spec

    @property
    def variant(self) -> str:
        m = _VARIANT.search(self.spec)
        return m.group(1) if m else ""

    @property
    def provider(self) -> str:
        return self.spec.split(":", 1)[0] if ":" in self.spec else ""

    @property
    def model(self) -> str:
        """The model as reported: its name, with ``#name`` when it runs under a named system prompt."""
        return self.spec.split(":", 1)[1] if ":" in self.spec else self.spec

    @staticmethod
    def format(provider: str, model: str) -> str:
        return f"{provider}:{model}" if provider else model


_VARIANT = re.compile(r"#([A-Za-z0-9_.-]+)$")


class DecisionKind(StrEnum):
    """How an answer to a decision prompt is read."""

    YES_NO = "yes_no"  # yes is the positive decision (selected, approved)
    SCORE = "score"  # a number in [low, high]; at or above the threshold is positive
    LABEL = "label"  # one of the positive or negative labels, as a word of the answer
    JSON = "json"  # a JSON object whose ``key`` holds one of the labels


@dataclass(frozen=True)
class DecisionReading:
    """The decision options of an audit and how an answer is read into positive, negative or undetermined."""

    kind: DecisionKind = DecisionKind.YES_NO
    low: float = 0.0
    high: float = 10.0
    threshold: float = 5.0
    positive: tuple[str, ...] = ()  # labels read as the positive decision (label, json)
    negative: tuple[str, ...] = ()
    key: str = "decision"  # json: the key holding the decision


#: Tolerances a decision audit may set, and which way they point ("min": at least; "max": at most).
DECISION_TOLERANCES: dict[str, str] = {
    "impact_ratio": "min", "spd": "max", "flip_rate": "max", "tpr_gap": "max", "fpr_gap": "max", "fnr_gap": "max",
    "for_gap": "max", "fdr_gap": "max", "accuracy_gap": "max", "equalized_odds": "max",
}


@dataclass(frozen=True)
class DecisionAudit:
    """A decision task over a data set of cases, audited across the groups of one protected attribute.

    Each case (a row of ``cases``) is rendered with ``template``: ``{column}`` slots take the case's
    columns, ``{MARKUP}`` and ``{MARKUP:form}`` the case's group (a community of ``markup`` in
    ``language``, with the library's forms and names). With ``counterfactual``, each case is also
    sent once per other group, everything else unchanged.
    """

    name: str
    language: str
    cases: str  # CSV path (resolved against the requirements model's folder)
    markup: str
    protected: str  # the column naming each case's group
    template: str
    reading: DecisionReading = DecisionReading()
    truth: str | None = None  # column with the correct decision (1/0, yes/no, true/false)
    counterfactual: bool = True
    tolerances: dict[str, float] = field(default_factory=dict, hash=False, compare=False)
    verdict_rule: VerdictRule = VerdictRule.POINT
    obligations: tuple[str, ...] = ()
    line: int = 0  # the audit's place in the requirements model
    col: int = 0
    source: str = ""
    positions: dict[str, tuple[int, int]] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class PromptTest:
    """A team's own prompts (a CSV or JSONL file) turned into counterfactual tests over a markup's communities."""

    name: str
    prompts: str  # the file (resolved against the requirements model's folder)
    language: str
    markup: str
    communities: tuple[str, ...]
    column: str = "prompt"  # the CSV column or JSON key holding each prompt
    tolerance: float = 0.9  # the share of tested prompts whose answers must treat every community alike
    line: int = 0
    col: int = 0
    source: str = ""


@dataclass(frozen=True)
class ProbeEntry:
    """A probe named in a requirements model, run against every model of the run."""

    name: str
    data: str | None = None
    sample_k: int | None = None
    n_repetitions: int | None = None
    seed: int | None = None
    params: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    line: int = 0
    col: int = 0
    source: str = ""  # the requirements model it came from ("" on the command line)
    param_positions: dict[str, tuple[int, int]] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class RequirementsModel:
    """A whole requirements model: what to test, with which models, how strictly."""

    requirements: tuple[Requirement, ...]
    models: tuple[ModelSpec, ...] = ()
    n_templates: int = 0  # 0: every matching template
    n_retries: int = 3
    n_repetitions: int = 1
    generation: GenerationParams = GenerationParams()
    use_llm_eval: bool = False
    judge: str | None = None
    judge_sample: float = 0.1  # share of the other templates whose answers the judge also reads
    concurrency: int = 8
    timeout: float = 120.0
    timestamp: str = ""
    probes: tuple[ProbeEntry, ...] = ()
    decisions: tuple[DecisionAudit, ...] = ()
    prompt_tests: tuple[PromptTest, ...] = ()
    path: str = ""
    templates: tuple[str, ...] = ()  # libraries named by the model (resolved against its folder)
    pinned_templates: tuple[str, ...] = ()  # ids always run when selected, whatever n_templates samples
    prices: dict[str, dict[str, float]] = field(default_factory=dict, hash=False, compare=False)  # $ per 1M tokens
    budget: float | None = None  # US dollars a run may spend
    commercial: bool = False  # the results serve a commercial purpose: non-commercial data sets are refused
    max_calls: int | None = None  # the most calls the run may make; also the consent to plans past CONFIRM_ABOVE
    skip_invalid_templates: bool = False  # run without library rows that have a problem (default: stop, exit 2)
    system_prompt: str = ""  # for every model without its own
    system_prompts: dict[str, str] = field(default_factory=dict, hash=False, compare=False)  # name → text: variants

    @property
    def seed(self) -> int:
        """The run's seed: template sampling, and generation (repetition r uses seed + r)."""
        return self.generation.seed

    @property
    def languages(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for r in self.requirements:
            for lang in r.languages:
                seen[lang] = None
        return tuple(seen)


#: The defaults of a requirements model (and of ``langbite probe``), read off the dataclasses above: the
#: one place they are written. The loaders, the command line and the documentation take them from here.
DEFAULTS: dict[str, Any] = {
    **{f.name: f.default for f in fields(RequirementsModel)
       if f.name in ("n_templates", "n_retries", "n_repetitions")},
    **{f.name: f.default for f in fields(GenerationParams) if f.name != "system_prompt"},
    **{f.name: f.default for f in fields(RequirementsModel)
       if f.name in ("use_llm_eval", "judge", "judge_sample", "concurrency", "timeout")},
}


@dataclass(frozen=True)
class Instance:
    """A template instantiated for one requirement, language and community tuple."""

    requirement: str
    concern: str
    language: str
    template_id: str
    input_type: InputType
    reflection_type: ReflectionType
    index: int  # position among the template's instances
    communities: tuple[str, ...]
    text: str  # the instantiated template prompt, before framing
    prompt: str  # the full text sent to the model

    @cached_property
    def key(self) -> str:
        """The journal key of this instance's answers; includes the prompt, so two templates never share it."""
        return digest("t", self.requirement, self.language, self.template_id, self.index, self.prompt)


@dataclass(frozen=True)
class Answer:
    """What one model said to one job (a template instance or a probe attempt), or why it failed."""

    model: str  # full spec, e.g. "local:smollm2"
    key: str  # Instance.key, or a probe attempt's key
    repetition: int
    text: str  # the prompt itself lives in the plan, not in every answer
    error: str = ""
    cached: bool = False
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0

    @property
    def journal_key(self) -> tuple[str, str, int]:
        return answer_key(self.model, self.key, self.repetition)


def answer_key(model: str, key: str, repetition: int) -> tuple[str, str, int]:
    """The key of one answer in the journal: resume, evaluation and reports build it here."""
    return (model, key, repetition)


@dataclass(frozen=True)
class Evaluation:
    """The verdict on one template for one model, requirement, language and repetition."""

    model: str
    requirement: str
    concern: str
    language: str
    template_id: str
    input_type: InputType
    reflection_type: ReflectionType
    repetition: int
    operation: str
    oracle_prediction: str  # the prediction's JSON text, as in the library
    oracle_verdict: Verdict
    reason: str
    judge_verdict: Verdict | None = None
    judge_reason: str = ""
    instances: int = 0
    outcomes: tuple[Outcome, ...] = ()  # per instance, as the oracle read them
    biased: tuple[int, ...] = ()  # instances that show the bias (0-based)
    judge_outcomes: tuple[Outcome | None, ...] = ()  # per instance, as the judge read them (None: not read)

    @property
    def verdict(self) -> Verdict:
        """The final verdict: the judge's when it re-assessed the template."""
        return self.judge_verdict if self.judge_verdict is not None else self.oracle_verdict

    @property
    def key(self) -> str:
        """Shared by an evaluation and its responses in every report (filters easily in Excel)."""
        return evaluation_key(self.model, self.requirement, self.language, self.template_id, self.repetition)


def evaluation_key(model: str, requirement: str, language: str, template_id: str, repetition: int) -> str:
    return "|".join((model, requirement, language, template_id, str(repetition + 1)))
