"""How many distinct questions a template library asks, per language and concern.

    python bench/library_shapes.py                     # the shipped library
    python bench/library_shapes.py path/to/library     # any library folder or files
    python bench/library_shapes.py --threshold 0.7 --show 5

A library's row count overstates what it asks when rows are one pattern
copied across concerns with only the group swapped. This script counts
question shapes: each template's text (task prefix and prompt) is normalised
(markups and community words replaced by one placeholder, case and
punctuation dropped), and templates whose token sequences are at least
``--threshold`` alike (difflib's ratio, 0.7 by default) are one shape
(single-link clusters). It prints the number of shapes per language and
concern, and overall per language.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from difflib import SequenceMatcher
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from langbite.library.markups import MARKUP  # noqa: E402
from langbite.library.templates import load_templates  # noqa: E402
from langbite.model import Template  # noqa: E402

PLACEHOLDER = "§"
_ANY_MARKUP = re.compile(r"\{[^{}]+\}")
_TOKEN = re.compile(r"[^\W_]+|§", re.UNICODE)


def community_words() -> set[str]:
    """Every community literal of the shipped requirements models, folded (to normalise them away)."""
    words: set[str] = set()
    for path in (REPO / "requirements_models").glob("*.json"):
        if path.name.endswith(".schema.json"):
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))
        for req in doc.get("requirements", []):
            for communities in req.get("communities", {}).values():
                for c in communities:
                    text = c if isinstance(c, str) else c.get("text", "")
                    words.update(w.casefold() for w in _TOKEN.findall(text) if len(w) > 2)
    return words


def tokens(template: Template, communities: set[str]) -> list[str]:
    text = f"{template.task_prefix} {template.prompt}"
    text = _ANY_MARKUP.sub(f" {PLACEHOLDER} ", MARKUP.sub(f" {PLACEHOLDER} ", text))
    out = [w.casefold() for w in _TOKEN.findall(text)]
    out = [PLACEHOLDER if w in communities else w for w in out]
    collapsed: list[str] = []
    for w in out:  # "§ people" and "§" read the same
        if not (w == PLACEHOLDER and collapsed and collapsed[-1] == PLACEHOLDER):
            collapsed.append(w)
    return collapsed


def shapes(templates: list[Template], threshold: float, communities: set[str]) -> list[list[Template]]:
    """Single-link clusters of templates whose normalised texts are ``threshold`` alike."""
    seqs = [tokens(t, communities) for t in templates]
    parent = list(range(len(templates)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(seqs)):
        for j in range(i + 1, len(seqs)):
            if find(i) == find(j):
                continue
            matcher = SequenceMatcher(None, seqs[i], seqs[j], autojunk=False)
            if matcher.real_quick_ratio() >= threshold and matcher.quick_ratio() >= threshold \
                    and matcher.ratio() >= threshold:
                parent[find(j)] = find(i)
    groups: dict[int, list[Template]] = defaultdict(list)
    for i, t in enumerate(templates):
        groups[find(i)].append(t)
    return list(groups.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[REPO / "templates"])
    parser.add_argument("--threshold", type=float, default=0.7)
    parser.add_argument("--show", type=int, default=0, help="print the N largest shapes of each language")
    args = parser.parse_args()
    communities = community_words()
    library = load_templates(args.paths)
    by_language: dict[str, list[Template]] = defaultdict(list)
    for t in library:
        by_language[t.language].append(t)
    for language, templates in sorted(by_language.items()):
        clusters = shapes(templates, args.threshold, communities)
        print(f"{language}: {len(clusters)} distinct questions in {len(templates)} templates")
        per_concern: dict[str, set[int]] = defaultdict(set)
        for n, cluster in enumerate(clusters):
            for t in cluster:
                per_concern[t.concern].add(n)
        for concern, ids in sorted(per_concern.items()):
            rows = sum(1 for t in templates if t.concern == concern)
            print(f"  {concern:<20} {len(ids):>4} shapes in {rows:>4} templates")
        for cluster in sorted(clusters, key=len, reverse=True)[: args.show]:
            print(f"  [{len(cluster)}] e.g. {cluster[0].template_id}: {cluster[0].prompt[:90]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
