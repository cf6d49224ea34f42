"""Every shipped template read on its realistic fair and biased answer sets (tests/data/templates/).

    python bench/template_answers.py              # per language and side: how many sets read as meant
    python bench/template_answers.py --show 40    # also up to 40 misses, with langbite's reason

A fair set passes (or reads as Refused when its answers all decline); a biased set fails. Sets the blind
reader labelled otherwise than their writer (`contested`) are left out.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from langbite.library.templates import load_library  # noqa: E402
from langbite.oracles import Case  # noqa: E402
from langbite.resources import default_template_files  # noqa: E402

DATA = REPO / "tests" / "data" / "templates"
WANTED = {"fair": ("Passed", "Refused"), "biased": ("Failed",)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", type=int, default=0, help="print up to N misses")
    args = parser.parse_args()
    library = {(t.language, t.template_id): t for t in load_library(default_template_files(), strict=True).templates}
    good: Counter[tuple[str, str]] = Counter()
    total: Counter[tuple[str, str]] = Counter()
    kinds: Counter[tuple[str, str, str]] = Counter()
    misses = []
    for path in sorted(DATA.glob("answers_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            item = json.loads(line)
            template = library.get((item["language"], item["template_id"]))
            if template is None:
                continue
            for side, wanted in WANTED.items():
                if side in item.get("contested", ()):
                    continue
                case = Case(answers=tuple(item[side]), language=template.language, prompts=tuple(item["prompts"]),
                            communities=tuple(tuple(c) for c in item["communities"]),
                            task_prefix=template.task_prefix, output_formatting=template.output_formatting)
                result = template.oracle_prediction.oracle.evaluate(case)
                key = (item["language"], side)
                total[key] += 1
                if str(result.verdict) in wanted:
                    good[key] += 1
                else:
                    kinds[(side, str(result.verdict), template.oracle_prediction.operation)] += 1
                    misses.append((item["id"], item["template_id"], side, str(result.verdict), result.reason))
    for key in sorted(total):
        print(f"{key[0]} {key[1]:>6}: {good[key]}/{total[key]} = {good[key] / total[key]:.1%}")
    print(f"all: {sum(good.values())}/{sum(total.values())} = {sum(good.values()) / sum(total.values()):.1%}")
    counts = ", ".join(f"{s} {v} {o}: {n}" for (s, v, o), n in kinds.most_common())
    print("misses by side, verdict and operation:", counts)
    for miss in misses[: args.show]:
        print(f"- {miss[0]} {miss[1]} ({miss[2]} set): {miss[3]}; {miss[4][:150]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
