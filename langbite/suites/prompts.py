"""A team's own prompts as a suite: each prompt and its counterfactual variants, answered and read side by side.

Each prompt of a ``prompt_tests`` file is swapped (:mod:`langbite.swap`) into every community of the test;
the original and every variant the swapper is sure of are sent to each model, and their answers are
compared: a different stance for one community ("yes" for one, "no" for another), a refusal for one, a
hedge for one, or a condition, requirement or warning for one only (the side-by-side reading of
:mod:`langbite.oracles.asymmetry`) fails the prompt. A test passes when the share of its tested prompts
that treat every community alike reaches its tolerance.

The run folder gets ``prompt_variants.csv`` (every prompt, its variants, and why a variant or a prompt
was not sent: listed for review, or no community mentioned), ``prompt_results.csv`` (per prompt and
model: the verdict and its reason) and ``prompt_counterfactual.csv`` (per test, model and pair of
communities: similarity of the answers with the groups masked, valence gap and stance flips, with
intervals, as counterfactual.csv gives them for templates; the workbook and page show them too).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from langbite.errors import InputError, InputErrors, every
from langbite.evaluate.counterfactual import PairMetrics
from langbite.evaluate.stats import wilson
from langbite.execute.engine import Job
from langbite.model import (
    GroupVerdict,
    ModelSpec,
    Outcome,
    PromptTest,
    RequirementsModel,
    answer_key,
    digest,
)
from langbite.oracles import asymmetry, reading
from langbite.oracles.lexicon import lexicon_for
from langbite.oracles.similarity import masked_words, rouge_l
from langbite.probes.datafile import read_csv, read_text
from langbite.report.csv_writer import write_csv
from langbite.report.rows import (
    COUNTERFACTUAL_COLUMNS,
    PROMPT_RESULT_COLUMNS,
    PROMPT_VARIANT_COLUMNS,
    CounterfactualRow,
    PromptGroupRow,
    PromptResultRow,
    PromptVariantRow,
)
from langbite.suites.base import BuildOptions, Context, Note, register
from langbite.swap import Swapped, swap

NAME = "prompts"


def load_prompts(test: PromptTest) -> list[tuple[str, str]]:
    """(id, prompt) of every row of the test's file; PATH:LINE:COL for a missing column or an empty prompt."""
    path = Path(test.prompts)
    out: list[tuple[str, str]] = []
    errors: list[InputError] = []
    if path.suffix == ".jsonl":
        for n, text_line in enumerate(read_text(path, "prompts file").splitlines(), 1):
            if not text_line.strip():
                continue
            try:
                row = json.loads(text_line)
            except ValueError as exc:
                errors.append(InputError(str(path), n, getattr(exc, "colno", 1), f"not a JSON line: {exc}"))
                continue
            text = row.get(test.column) if isinstance(row, dict) else None
            if not isinstance(text, str) or not text.strip():
                errors.append(InputError(str(path), n, 1, f"no prompt: the line needs a non-empty \"{test.column}\""))
                continue
            out.append((str(row.get("id", n)), text.strip()))
    else:
        header, rows = read_csv(path, [test.column], "prompts file")
        col = header.index(test.column) + 1
        for line, row in rows:
            text = row[test.column].strip()
            if not text:
                errors.append(InputError(str(path), line, col, f"the prompt (column '{test.column}') is empty"))
                continue
            out.append((row.get("id") or str(line), text))
    if errors:
        raise InputErrors(errors)
    return out


def prompt_key(test: str, prompt_id: str, group: str, text: str) -> str:
    return digest("u", test, prompt_id, group, text)


@dataclass(frozen=True)
class PromptSet:
    test: PromptTest
    items: tuple[tuple[str, Swapped], ...]  # (id, the prompt and its variants)


@dataclass(frozen=True)
class PromptSuite:
    name: ClassVar[str] = NAME

    config: RequirementsModel
    sets: tuple[PromptSet, ...]

    def n_calls(self, model: str) -> int:
        sent = sum(len(s.sent) for p in self.sets for _, s in p.items if len(s.sent) >= 2)
        return sent * self.config.n_repetitions

    def jobs(self, model: str) -> Iterator[Job]:
        for p in self.sets:
            for prompt_id, swapped in p.items:
                if len(swapped.sent) < 2:
                    continue
                for v in swapped.sent:
                    for rep in range(self.config.n_repetitions):
                        yield Job(model, prompt_key(p.test.name, prompt_id, v.group, v.text), v.text, rep)

    def describe(self) -> list[str]:
        lines = []
        for p in self.sets:
            tested = sum(1 for _, s in p.items if len(s.sent) >= 2)
            unaware = sum(1 for _, s in p.items if s.group is None)
            review = sum(1 for _, s in p.items for v in s.variants if v.review)
            lines.append(f"prompt test {p.test.name} ({p.test.language}, {p.test.markup}): {len(p.items)} prompts, "
                         f"{tested} tested, {unaware} mention no community, {review} variants listed for review")
        return lines

    def notes(self) -> list[Note]:
        return [Note(f"prompt test {p.test.name}: prompt {pid} mentions no community of {p.test.markup}: it can "
                     "only be tested by adding the attribute")
                for p in self.sets for pid, s in p.items if s.group is None]

    def snapshot_files(self) -> tuple[Path, ...]:
        return tuple(Path(p.test.prompts) for p in self.sets)

    def variants(self) -> Iterator[PromptVariantRow]:
        """Every prompt and its variants: original, sent, listed for review (with why), or not tested."""
        for p in self.sets:
            for pid, s in p.items:
                if not s.variants:
                    yield PromptVariantRow(test=p.test.name, id=pid, group="", status="not tested",
                                           note="mentions no community", text=s.prompt)
                for i, v in enumerate(s.variants):
                    status = "review" if v.review else ("original" if i == 0 else "sent")
                    yield PromptVariantRow(test=p.test.name, id=pid, group=v.group, status=status,
                                           note="; ".join(v.review), text=v.text)

    async def evaluate(self, ctx: Context) -> PromptResults:
        out: list[PromptResultRow] = []
        pairs: dict[tuple[str, str, str, str], PairMetrics] = {}
        for spec in ctx.models:
            for p in self.sets:
                lexicon = lexicon_for(p.test.language)
                reader = asymmetry.reader_for(lexicon) if lexicon else None
                for prompt_id, swapped in p.items:
                    if len(swapped.sent) < 2 or reader is None:
                        continue
                    for rep in range(self.config.n_repetitions):
                        answers = []
                        for v in swapped.sent:
                            a = ctx.answers.get(answer_key(spec.spec, prompt_key(p.test.name, prompt_id, v.group,
                                                                                  v.text), rep))
                            answers.append(a.text if a and not a.error else None)
                        groups = [v.group for v in swapped.sent]
                        verdict, reason = judge(groups, answers, reader)
                        out.append(PromptResultRow(test=p.test.name, model=spec.spec, id=prompt_id, verdict=verdict,
                                                   reason=reason, groups=" | ".join(groups)))
                        if all(a is not None for a in answers):
                            _pairs(pairs, spec.spec, p.test, groups, [a or "" for a in answers], reader)
        return PromptResults(self, tuple(out), tuple(m.row(str(self.config.seed)) for m in pairs.values()))


def _pairs(pairs: dict[tuple[str, str, str, str], PairMetrics], model: str, test: PromptTest, groups: list[str],
           answers: list[str], reader: asymmetry.Reader) -> None:
    """The original's answer against each variant's: similarity with the groups masked, valence gap, stance flip."""
    words = [masked_words(a, groups) for a in answers]
    negative = [asymmetry.negativity(a, groups, reader) for a in answers]
    stances = [reading.leading_stance(a, reader.lexicon, reader.others).stance for a in answers]
    spec = ModelSpec(model)
    for j in range(1, len(answers)):
        first, second = sorted((groups[0], groups[j]))
        pair = pairs.setdefault((model, test.name, first, second), PairMetrics(
            spec.provider, spec.model, test.name, test.language, first, second, [], [], []))
        pair.similarity.append(rouge_l(words[0], words[j]))
        pair.valence_gap.append(float(abs(negative[0] - negative[j])))
        if stances[0] is not None and stances[j] is not None:
            pair.flips.append(float(stances[0] is not stances[j]))


def judge(groups: list[str], answers: list[str | None], reader: asymmetry.Reader) -> tuple[str, str]:
    """Passed, Failed, Refused, Undetermined or Error for one prompt's answers, with the reason."""
    if any(a is None for a in answers):
        return "Error", "a call got no answer"
    lexicon = reader.lexicon
    reads: list[asymmetry.Read] = []
    stances: list[reading.Stance | None] = []
    for a in answers:
        assert a is not None
        if reading.is_refusal(a, lexicon):
            reads.append((Outcome.REFUSED, "refuses"))
            stances.append(None)
            continue
        stance = reading.leading_stance(a, lexicon, reader.others).stance
        stances.append(stance)
        reads.append((Outcome.UNDETERMINED, "") if reading.is_garbled(a) or not a.strip() else (Outcome.FAIR, ""))
    decided = {s for s, (o, _) in zip(stances, reads, strict=True) if s is not None and o is Outcome.FAIR}
    if len(decided) > 1:
        said = "; ".join(f"{s!s} for {g}" for g, s in zip(groups, stances, strict=True) if s is not None)
        return "Failed", f"answers differ: {said}"
    if all(o is Outcome.REFUSED for o, _ in reads):
        return "Refused", "refuses for every community"
    texts = [a or "" for a in answers]
    compared = asymmetry.compare(texts, [(g,) for g in groups], reads, reader)
    biased = [why for o, why in compared if o is Outcome.BIASED]
    if biased:
        return "Failed", biased[0]
    if any(o is not Outcome.FAIR for o, _ in compared):
        return "Undetermined", next((why for o, why in compared if o is not Outcome.FAIR and why), "")
    return "Passed", "every community treated alike"


@register(NAME)
def build(config: RequirementsModel, options: BuildOptions) -> PromptSuite | None:
    if not config.prompt_tests:
        return None
    def prompt_set(test: PromptTest) -> PromptSet:
        return PromptSet(test, tuple((pid, swap(text, test.language, test.markup, test.communities))
                                     for pid, text in load_prompts(test)))

    return PromptSuite(config, tuple(every(config.prompt_tests, prompt_set)))


@dataclass(frozen=True)
class PromptResults:
    suite_: PromptSuite
    rows: tuple[PromptResultRow, ...]
    pairs: tuple[CounterfactualRow, ...] = ()  # counterfactual metrics per test × model × pair of communities

    @property
    def suite(self) -> str:
        return NAME

    def groups(self) -> list[PromptGroupRow]:
        """Per test × model: tested prompts, passed, failed, the pass rate and its interval, the verdict."""
        out: list[PromptGroupRow] = []
        tolerance = {p.test.name: p.test.tolerance for p in self.suite_.sets}
        for key in dict.fromkeys((r["test"], r["model"]) for r in self.rows):
            mine = [r for r in self.rows if (r["test"], r["model"]) == key]
            passed = sum(r["verdict"] == "Passed" for r in mine)
            failed = sum(r["verdict"] == "Failed" for r in mine)
            n = passed + failed
            rate = passed / n if n else math.nan
            lo, hi = wilson(passed, n)
            verdict = GroupVerdict.NOT_EVALUATED if not n else (
                GroupVerdict.PASSED if rate >= tolerance[key[0]] else GroupVerdict.FAILED)
            out.append(PromptGroupRow(test=key[0], model=key[1], prompts=len(mine), passed=passed, failed=failed,
                                      pass_rate=rate, ci_low=lo, ci_high=hi, tolerance=tolerance[key[0]],
                                      verdict=str(verdict)))
        return out

    def verdicts(self) -> list[GroupVerdict]:
        return [GroupVerdict(g["verdict"]) for g in self.groups()]

    def counts(self) -> dict[str, Any]:
        return {"prompt_tests_passed": sum(g["verdict"] == GroupVerdict.PASSED for g in self.groups()),
                "prompt_tests_total": len(self.groups())}

    def provenance(self) -> dict[str, Any]:
        return {"prompt_files": [p.test.prompts for p in self.suite_.sets]}

    def console(self) -> list[str]:
        lines = []
        for g in self.groups():
            rate = f"{g['pass_rate']:.0%}" if g["pass_rate"] == g["pass_rate"] else "-"
            lines.append(f"prompt test {g['test']} on {g['model']}: {g['verdict']} ({g['passed']} of "
                         f"{g['passed'] + g['failed']} prompts treat every community alike, {rate}; tolerance "
                         f"{g['tolerance']:.0%})")
            for r in self.rows:
                if (r["test"], r["model"]) == (g["test"], g["model"]) and r["verdict"] == "Failed":
                    lines.append(f"  {r['id']}: {r['reason']}")
        lines += [note.message for note in self.suite_.notes()][:20]
        return lines

    def write(self, run_dir: Path) -> list[Path]:
        run_dir.mkdir(parents=True, exist_ok=True)
        variants, results = run_dir / "prompt_variants.csv", run_dir / "prompt_results.csv"
        pairs = run_dir / "prompt_counterfactual.csv"
        write_csv(variants, PROMPT_VARIANT_COLUMNS, self.suite_.variants())
        write_csv(results, PROMPT_RESULT_COLUMNS, self.rows)
        write_csv(pairs, COUNTERFACTUAL_COLUMNS, self.pairs)
        return [variants, results, pairs]
