"""Agreement of langbite's oracles with hand-labelled answers (tests/data/verdicts/*.jsonl).

    python bench/verdict_agreement.py                 # every file: agreement and confusion tables
    python bench/verdict_agreement.py --show 20       # also print up to 20 disagreements
    python bench/verdict_agreement.py --half dev      # one seeded half of the items (dev or check)

Each corpus item is a template's answers with the labels a careful reader gave
(fair, biased, refused, undetermined) and the template verdict. The script
frames the prompt as langbite does, runs the item's oracle prediction, and
compares per answer and per template.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from langbite.instantiate import DELIMITER_SENTENCE, DELIMITER  # noqa: E402
from langbite.oracles import Case, Prediction, parse_prediction  # noqa: E402

CORPUS = REPO / "tests" / "data" / "verdicts"
LABELS = ("fair", "biased", "refused", "undetermined")
DELTA = 0.01  # the corpus reads gaps of a point or less (on a 0-100 scale) as agreement


def frame(item: dict[str, Any], text: str) -> str:
    """The prompt as langbite sends it (instantiate.frame, for a corpus item)."""
    prefix, fmt = item.get("task_prefix", ""), item.get("output_formatting", "")
    if prefix:
        sentence = DELIMITER_SENTENCE.get(item["language"][:2], DELIMITER_SENTENCE["en"])
        body = f"{prefix} {sentence} {DELIMITER}{text}{DELIMITER}."
    else:
        body = text
    return f"{body} {fmt}".strip() if fmt else body


def load(half: str | None = None) -> list[dict[str, Any]]:
    items = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        if path.name.startswith("realistic_"):
            continue  # labelled per template by two readers: measured by verdict, see realistic() below
        for line in path.read_text(encoding="utf-8").splitlines():
            item = json.loads(line)
            item["file"] = path.name
            if half:
                bit = int(hashlib.sha256(item["id"].encode()).hexdigest(), 16) % 2
                if (bit == 0) != (half == "dev"):
                    continue
            items.append(item)
    return items


def judge(item: dict[str, Any]) -> tuple[list[str], str, str]:
    """(outcome per answer, template verdict, reason) from langbite's oracle."""
    prediction = parse_prediction(json.dumps(item["oracle_prediction"]))
    if not isinstance(prediction, Prediction):
        raise ValueError(f"{item['id']}: invalid prediction {prediction}")
    texts = item.get("prompts") or [item["prompt"]] * len(item["answers"])
    case = Case(answers=tuple(item["answers"]), language=item["language"], delta=item.get("delta", DELTA),
                prompts=tuple(frame(item, t) for t in texts),
                communities=tuple(tuple(c) for c in item.get("communities", [])),
                task_prefix=item.get("task_prefix", ""), output_formatting=item.get("output_formatting", ""))
    result = prediction.oracle.evaluate(case)
    return [str(o) for o in result.outcomes], str(result.verdict), result.reason


def measure(items: list[dict[str, Any]]) -> dict[str, Any]:
    answers = Counter()
    confusion: Counter[tuple[str, str]] = Counter()
    verdicts = Counter()
    misses = []
    for item in items:
        outcomes, verdict, reason = judge(item)
        for label, got, text in zip(item["labels"], outcomes, item["answers"], strict=True):
            confusion[(label, got)] += 1
            answers["agree" if label == got else "disagree"] += 1
            if label != got:
                misses.append((item["id"], label, got, text, reason))
        verdicts["agree" if verdict == item["verdict"] else "disagree"] += 1
    return {"answers": answers, "confusion": confusion, "verdicts": verdicts, "misses": misses}


def report(name: str, m: dict[str, Any]) -> str:
    a, v = m["answers"], m["verdicts"]
    n_a, n_v = a["agree"] + a["disagree"], v["agree"] + v["disagree"]
    lines = [f"{name}: answers {a['agree']}/{n_a} = {a['agree'] / max(n_a, 1):.1%}; "
             f"template verdicts {v['agree']}/{n_v} = {v['agree'] / max(n_v, 1):.1%}",
             "  label \\ langbite " + "".join(f"{x:>14}" for x in LABELS)]
    for label in LABELS:
        lines.append(f"  {label:<17}" + "".join(f"{m['confusion'][(label, g)]:>14}" for g in LABELS))
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", type=int, default=0, help="print up to N disagreements")
    parser.add_argument("--half", choices=("dev", "check"), help="one seeded half of the corpus")
    args = parser.parse_args()
    items = load(args.half)
    by_file: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        by_file.setdefault(item["file"], []).append(item)
    for name, group in by_file.items():
        print(report(name, measure(group)))
    total = measure(items)
    print(report("all", total))
    for miss in total["misses"][: args.show]:
        print(f"- {miss[0]}: label {miss[1]}, langbite {miss[2]}: {miss[3][:160]!r} ({miss[4][:100]})")
    realistic()
    return 0


def realistic() -> None:
    """The realistic corpus, measured by template verdict (bench/realistic_agreement.py has the details)."""
    sys.path.insert(0, str(REPO / "bench"))
    import realistic_agreement as ra

    items = ra.load()
    m = ra.measure(items)
    print(f"realistic_*.jsonl (two readers per item, {len(items)} items): template verdicts {m['agree']}/{m['total']}"
          f" = {m['agree'] / m['total']:.1%}; biased reported Passed {m['biased_passed']}; fair or unusable reported"
          f" Failed {m['fair_failed']}")
    print("  label \\ langbite " + "".join(f"{v:>14}" for v in ra.VERDICTS))
    for label in ra.VERDICTS:
        print(f"  {label:<17}" + "".join(f"{m['confusion'][(label, v)]:>14}" for v in ra.VERDICTS))


if __name__ == "__main__":
    sys.exit(main())
