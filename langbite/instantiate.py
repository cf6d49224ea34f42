"""Expand templates into prompt instances. Pure functions, fixed order.

- k distinct numbered markups ({GENDER1}, {GENDER2}, …): one instance per
  ordered k-permutation of distinct communities.
- one unnumbered markup ({GENDER}, possibly repeated): one instance per
  community, the same community in every place.
- no markup: exactly one instance.
- two markup kinds (an intersectional template, ``{GENDER}`` and ``{COUNTRY}``):
  every combination of the two kinds' assignments, when the requirement
  crosses the second kind (its ``intersect``).
- ``{X:form}`` writes the same community in another form
  (:mod:`langbite.library.communities`); a community without that form is
  left out of the template's instances. With ``{X:name}``, each assignment is
  asked ``names_per_community`` times, with the communities' first, second, …
  names.

The final prompt is framed as LangBiTe frames it: with a task prefix, the
prefix, a sentence naming the delimiter, the instance between triple quotes,
then the output formatting; without one, the instance then the formatting.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from itertools import permutations
from math import perm

from langbite.library.communities import NAME_FORM, community_of, render
from langbite.library.markups import MARKUP, scan, split
from langbite.model import Instance, Requirement, Template

DELIMITER = '"""'
#: LangBiTe's framing sentence; Spanish and Catalan say it as those languages do ("the text is in triple
#: quotes"), whether the task prefix calls it a sentence or a statement. English names the text as the prefix
#: does: "the following statement" is followed by "The statement is delimited by", not by a second name.
DELIMITER_SENTENCE = {
    "en": f"The sentence is delimited by {DELIMITER}.",
    "es": f"El texto va entre comillas triples ({DELIMITER}).",
    "ca": f"El text va entre cometes triples ({DELIMITER}).",
}
_STATEMENT = re.compile(r"\bstatement\b", re.IGNORECASE)
#: A quoted text that ends a sentence of its own needs no second full stop after the closing quotes.
_ENDS_SENTENCE = re.compile(r"[.!?…]\s*$")


@lru_cache(maxsize=4096)
def _forms(task_prefix: str, prompt: str) -> frozenset[tuple[str, str]]:
    return scan(task_prefix).forms | scan(prompt).forms


def _by_root(markups: tuple[str, ...]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for name in markups:
        groups.setdefault(split(name)[0], []).append(name)
    return groups


def missing_forms(template: Template, requirement: Requirement) -> list[tuple[str, str]]:
    """(community, form) pairs the template needs and the requirement's communities cannot give."""
    forms = _forms(template.task_prefix, template.prompt)
    groups = requirement.markups(template.language)
    missing = []
    for root, form in sorted(forms):
        for name in groups.get(root, ()):
            c = community_of(requirement, root, template.language, name)
            if render(c, form, template.language) is None:
                missing.append((name, form))
    return missing


def fill(text: str, assignment: dict[str, str], language: str = "", requirement: Requirement | None = None,
         variant: int = 0) -> str:
    """``text`` with each markup in ``assignment`` (markup → community) written in its form."""
    def one(m: re.Match[str]) -> str:
        name = m.group(1) + m.group(2)
        if name not in assignment:
            return m.group(0)  # another kind's markup stays as written (as LangBiTe leaves it)
        community = assignment[name]
        if not m.group(3) or requirement is None:
            return community
        written = render(community_of(requirement, m.group(1), language, community), m.group(3), language, variant)
        return community if written is None else written
    return MARKUP.sub(one, text)


def _slots(template: Template, requirement: Requirement) -> tuple[list[tuple[tuple[str, ...], tuple[str, ...]]], int]:
    """Per markup kind, its numbered markups and the communities that can fill them; and the name variants."""
    language = template.language
    forms = _forms(template.task_prefix, template.prompt)
    groups = requirement.markups(language)
    kinds = []
    for root, names in _by_root(template.markups).items():
        needed = [form for r, form in forms if r == root]
        usable = tuple(c for c in groups.get(root, ())
                       if all(render(community_of(requirement, root, language, c), f, language) is not None
                              for f in needed))
        kinds.append((tuple(names), usable))
    variants = requirement.names_per_community if any(f == NAME_FORM for _, f in forms) else 1
    return kinds, variants


def count_assignments(template: Template, requirement: Requirement) -> int:
    """How many instances :func:`assignments` yields, computed without building them (a plan of millions)."""
    kinds, total = _slots(template, requirement)
    for names, usable in kinds:
        total *= perm(len(usable), len(names))
    return total


def assignments(template: Template, requirement: Requirement) -> Iterator[tuple[dict[str, str], tuple[str, ...], int]]:
    """(markup → community, the communities in markup order, name variant) for every instance, in order."""
    kinds, variants = _slots(template, requirement)
    for parts in _combinations(kinds):
        assignment = {m: c for names, combo in parts for m, c in zip(names, combo, strict=True)}
        flat = tuple(c for _, combo in parts for c in combo)
        for variant in range(variants):
            yield assignment, flat, variant


def _combinations(kinds: list[tuple[tuple[str, ...], tuple[str, ...]]]) -> Iterator[tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]]:
    """``itertools.product`` of each kind's permutations, in its order, built lazily (a sample stops early)."""
    if not kinds:
        yield ()
        return
    (names, usable), rest = kinds[0], kinds[1:]
    for combo in permutations(usable, len(names)):
        for tail in _combinations(rest):
            yield ((names, combo), *tail)


def frame(template: Template, text: str, prefix: str) -> str:
    """Assemble the prompt sent to the model from prefix, instance and formatting."""
    formatting = template.output_formatting
    if prefix:
        sentence = DELIMITER_SENTENCE.get(template.language[:2], DELIMITER_SENTENCE["en"])
        if sentence is DELIMITER_SENTENCE["en"] and _STATEMENT.search(prefix):
            sentence = sentence.replace("sentence", "statement", 1)
        stop = "" if _ENDS_SENTENCE.search(text) else "."
        body = f"{prefix} {sentence} {DELIMITER}{text}{DELIMITER}{stop}"
    else:
        body = text
    return f"{body} {formatting}".strip() if formatting else body


def iter_instances(template: Template, requirement: Requirement) -> Iterator[Instance]:
    """The instances of ``template`` for ``requirement`` in the template's language, one at a time."""
    language = template.language
    for index, (assignment, combo, variant) in enumerate(assignments(template, requirement)):
        text = fill(template.prompt, assignment, language, requirement, variant)
        prefix = fill(template.task_prefix, assignment, language, requirement, variant)
        yield Instance(
            requirement=requirement.name,
            concern=template.concern,
            language=language,
            template_id=template.template_id,
            input_type=template.input_type,
            reflection_type=template.reflection_type,
            index=index,
            communities=combo,
            text=text,
            prompt=frame(template, text, prefix),
        )


def instantiate(template: Template, requirement: Requirement) -> list[Instance]:
    """All instances of ``template`` for ``requirement`` in the template's language."""
    return list(iter_instances(template, requirement))


def count_instances(template: Template, n_communities: int) -> int:
    """How many instances a template yields with ``n_communities`` communities."""
    k = len(template.markups)
    if k == 0:
        return 1
    total = 1
    for i in range(k):
        total *= max(n_communities - i, 0)
    return total
