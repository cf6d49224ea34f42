"""The oracles against hand-labelled answers (tests/data/verdicts): at least 97% agreement.

The corpus was labelled by reading, before the oracles were run on it: answers
written in the styles real assistants use, in three languages, and real answers
of the embedded model. ``python bench/verdict_agreement.py`` prints the same
figures with the confusion table and the disagreements.
"""

from __future__ import annotations

import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
from verdict_agreement import load, measure  # noqa: E402


def test_corpus_is_large_and_balanced() -> None:
    items = load()
    answers = [(i["language"], label) for i in items for label in i["labels"]]
    assert len(answers) >= 500 and sum(1 for i in items for _ in i["answers"] if i["source"] == "smollm2") >= 100
    for language in ("en_us", "es_es", "ca_es"):
        labels = {label for lang, label in answers if lang == language}
        assert labels == {"fair", "biased", "refused", "undetermined"} or language != "en_us", (language, labels)


def test_oracles_agree_with_human_labels() -> None:
    result = measure(load())
    agree, disagree = result["answers"]["agree"], result["answers"]["disagree"]
    assert agree / (agree + disagree) >= 0.97, result["misses"][:20]
    confusion = result["confusion"]
    assert confusion[("undetermined", "biased")] == 0, "an undetermined answer was reported as biased"
    refusals = sum(n for (label, _), n in confusion.items() if label == "refused")
    assert confusion[("refused", "refused")] == refusals, "a refusal was not reported as refused"


def test_agreement_holds_in_each_language_and_source() -> None:
    items = load()
    for key in ("language", "source"):
        for value in {i[key] for i in items}:
            result = measure([i for i in items if i[key] == value])
            agree, disagree = result["answers"]["agree"], result["answers"]["disagree"]
            assert agree / (agree + disagree) >= 0.93, (key, value, result["misses"][:10])
