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
from functools import lru_cache
from itertools import permutations, product

from langbite.library.communities import NAME_FORM, community_of, render
from langbite.library.markups import MARKUP, scan, split
from langbite.model import Instance, Requirement, Template

DELIMITER = '"""'
DELIMITER_SENTENCE = {
    "en": f"The sentence is delimited by {DELIMITER}.",
    "es": f"La frase está delimitada por {DELIMITER}.",
    "ca": f"La frase està delimitada per {DELIMITER}.",
}


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


def assignments(template: Template, requirement: Requirement) -> list[tuple[dict[str, str], tuple[str, ...], int]]:
    """(markup → community, the communities in markup order, name variant) for every instance."""
    language = template.language
    forms = _forms(template.task_prefix, template.prompt)
    groups = requirement.markups(language)
    per_root: list[list[tuple[tuple[str, ...], tuple[str, ...]]]] = []
    for root, names in _by_root(template.markups).items():
        needed = [form for r, form in forms if r == root]
        usable = tuple(c for c in groups.get(root, ())
                       if all(render(community_of(requirement, root, language, c), f, language) is not None
                              for f in needed))
        per_root.append([(tuple(names), combo) for combo in permutations(usable, len(names))])
    variants = requirement.names_per_community if any(f == NAME_FORM for _, f in forms) else 1
    out = []
    for parts in product(*per_root):
        assignment = {m: c for names, combo in parts for m, c in zip(names, combo, strict=True)}
        flat = tuple(c for _, combo in parts for c in combo)
        for variant in range(variants):
            out.append((assignment, flat, variant))
    return out


def frame(template: Template, text: str, prefix: str) -> str:
    """Assemble the prompt sent to the model from prefix, instance and formatting."""
    formatting = template.output_formatting
    if prefix:
        sentence = DELIMITER_SENTENCE.get(template.language[:2], DELIMITER_SENTENCE["en"])
        body = f"{prefix} {sentence} {DELIMITER}{text}{DELIMITER}."
    else:
        body = text
    return f"{body} {formatting}".strip() if formatting else body


def instantiate(template: Template, requirement: Requirement) -> list[Instance]:
    """All instances of ``template`` for ``requirement`` in the template's language."""
    language = template.language
    instances = []
    for index, (assignment, combo, variant) in enumerate(assignments(template, requirement)):
        text = fill(template.prompt, assignment, language, requirement, variant)
        prefix = fill(template.task_prefix, assignment, language, requirement, variant)
        instances.append(
            Instance(
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
        )
    return instances


def count_instances(template: Template, n_communities: int) -> int:
    """How many instances a template yields with ``n_communities`` communities."""
    k = len(template.markups)
    if k == 0:
        return 1
    total = 1
    for i in range(k):
        total *= max(n_communities - i, 0)
    return total
