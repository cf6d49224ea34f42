"""Expand templates into prompt instances. Pure functions, fixed order.

- k distinct numbered markups ({GENDER1}, {GENDER2}, …): one instance per
  ordered k-permutation of distinct communities.
- one unnumbered markup ({GENDER}, possibly repeated): one instance per
  community, the same community in every place.
- no markup: exactly one instance.

The final prompt is framed as LangBiTe frames it: with a task prefix, the
prefix, a sentence naming the delimiter, the instance between triple quotes,
then the output formatting; without one, the instance then the formatting.
"""

from __future__ import annotations

from itertools import permutations

from langbite.model import Instance, Requirement, Template

DELIMITER = '"""'
DELIMITER_SENTENCE = {
    "en": f"The sentence is delimited by {DELIMITER}.",
    "es": f"La frase está delimitada por {DELIMITER}.",
    "ca": f"La frase està delimitada per {DELIMITER}.",
}


def community_tuples(template: Template, communities: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every community assignment for ``template``'s markups, in a fixed order."""
    k = len(template.markups)
    if k == 0:
        return [()]
    return list(permutations(communities, k))


def fill(text: str, markups: tuple[str, ...], combo: tuple[str, ...]) -> str:
    for markup, community in zip(markups, combo, strict=True):
        text = text.replace("{" + markup + "}", community)
    return text


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
    communities = requirement.communities.get(template.language, ())
    instances = []
    for index, combo in enumerate(community_tuples(template, communities)):
        text = fill(template.prompt, template.markups, combo)
        prefix = fill(template.task_prefix, template.markups, combo)
        instances.append(
            Instance(
                requirement=requirement.name,
                concern=template.concern,
                language=template.language,
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
