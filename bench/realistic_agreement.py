"""Template verdicts against the realistic corpus (tests/data/verdicts/realistic_*.jsonl).

    python bench/realistic_agreement.py               # agreement per language and the confusion table
    python bench/realistic_agreement.py --show 30     # also print up to 30 disagreements

Each item is one shipped template's prompts (one per community) with the answers an
assistant-style writer gave, labelled fair, biased, refused or unusable by two readers
who had not read langbite's code; only the items both readers labelled alike are here
(tests/data/verdicts/README.md). A label maps to a template verdict: fair → Passed,
biased → Failed, refused → Refused, unusable → Undetermined.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from langbite.model import Prediction  # noqa: E402
from langbite.oracles import Case, parse_prediction  # noqa: E402

CORPUS = REPO / "tests" / "data" / "verdicts"
VERDICTS = ("Passed", "Failed", "Refused", "Undetermined")


def load(*, stale: bool = False) -> list[dict[str, Any]]:
    """The corpus's items; without ``stale``, not those whose template was removed or re-designed since its
    answers were written (they measure a library defect already fixed, not the reading of answers)."""
    items = []
    for path in sorted(CORPUS.glob("realistic_*.jsonl")):
        items += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [i for i in items if stale or "stale" not in i]


@lru_cache(maxsize=1)
def library() -> dict[tuple[str, str], str]:
    """The shipped templates' predictions by (language, template id): an item is read with its template's
    prediction as the library has it today (a prediction corrected since the answers were written applies)."""
    from langbite.library.templates import load_library
    from langbite.resources import default_template_files

    lib = load_library(default_template_files(), strict=True)
    return {(t.language, t.template_id): t.oracle_prediction.text for t in lib.templates}


def verdict(item: dict[str, Any]) -> tuple[str, str]:
    """(langbite's template verdict, its reason) for one corpus item."""
    text = library().get((item["language"], item.get("template_id", "")), json.dumps(item["oracle_prediction"]))
    prediction = parse_prediction(text)
    if not isinstance(prediction, Prediction):
        raise ValueError(f"{item['id']}: invalid prediction {prediction}")
    case = Case(answers=tuple(item["answers"]), language=item["language"], prompts=tuple(item["prompts"]),
                communities=tuple(tuple(c) for c in item["communities"]), task_prefix=item["task_prefix"],
                output_formatting=item["output_formatting"])
    result = prediction.oracle.evaluate(case)
    return str(result.verdict), result.reason


def measure(items: list[dict[str, Any]]) -> dict[str, Any]:
    confusion: Counter[tuple[str, str]] = Counter()
    misses = []
    for item in items:
        got, reason = verdict(item)
        confusion[(item["verdict"], got)] += 1
        if got != item["verdict"]:
            misses.append((item["id"], item["verdict"], got, reason))
    agree = sum(n for (a, b), n in confusion.items() if a == b)
    return {"agree": agree, "total": len(items), "confusion": confusion, "misses": misses,
            "biased_passed": confusion[("Failed", "Passed")],
            "fair_failed": confusion[("Passed", "Failed")] + confusion[("Undetermined", "Failed")]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", type=int, default=0, help="print up to N disagreements")
    args = parser.parse_args()
    items = load()
    print(f"{len(items)} items ({len(load(stale=True)) - len(items)} left out: their template was removed or "
          "re-designed since, field 'stale')")
    for language in sorted({i["language"] for i in items}):
        m = measure([i for i in items if i["language"] == language])
        print(f"{language}: {m['agree']}/{m['total']} = {m['agree'] / m['total']:.1%}")
    m = measure(items)
    print(f"all: {m['agree']}/{m['total']} = {m['agree'] / m['total']:.1%}; biased reported Passed: "
          f"{m['biased_passed']}; fair or unusable reported Failed: {m['fair_failed']}")
    print("  label \\ langbite " + "".join(f"{v:>14}" for v in VERDICTS))
    for label in VERDICTS:
        print(f"  {label:<17}" + "".join(f"{m['confusion'][(label, v)]:>14}" for v in VERDICTS))
    for miss in m["misses"][: args.show]:
        print(f"- {miss[0]}: label {miss[1]}, langbite {miss[2]} ({miss[3][:140]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
