"""Oracles: the registry, the built-in operations, and parsing a prediction once into a typed value.

Below the library and the evaluation stage: the library loader parses each
``oracle_prediction`` here; evaluation calls the oracle it carries.
"""

from __future__ import annotations

import json
from functools import lru_cache

from langbite.oracles import builtin as _builtin  # noqa: F401  (registers the built-in operations)
from langbite.oracles import counterfactual as _counterfactual  # noqa: F401  (same-value operations)
from langbite.model import Prediction
from langbite.oracles.base import Case, Oracle, OracleResult, oracles, register

register_oracle = register

__all__ = ["Case", "Oracle", "OracleResult", "Prediction", "oracles", "parse_prediction", "register",
           "register_oracle"]


def parse_prediction(text: str) -> Prediction | tuple[str, ...]:
    """Parse and check one prediction's JSON text: a :class:`Prediction`, or its problems.

    A library repeats the same predictions many times, so results are memoised
    (keyed by the registered operations too, for plugins registered later).
    """
    return _parse(text, tuple(oracles.names()), oracles.generation)


@lru_cache(maxsize=8192)
def _parse(text: str, _registered: tuple[str, ...], _generation: int) -> Prediction | tuple[str, ...]:
    from langbite.jsontext import JsonProblem, load_json
    from langbite.schemas import check_oracle_prediction

    try:
        document = load_json(text)
    except JsonProblem as exc:
        if exc.line and exc.message.startswith("invalid JSON: "):  # a cell: say where in the cell
            lines = text.split("\n")
            offset = sum(len(x) + 1 for x in lines[: exc.line - 1]) + exc.col
            return (f"invalid JSON at character {offset}: {exc.message.removeprefix('invalid JSON: ')}",)
        return (exc.message,)
    problems = check_oracle_prediction(document)
    if problems:
        return tuple(problems)
    oracle = oracles.get(document["operation"]).from_prediction(document)
    return Prediction(oracle, json.dumps(document, ensure_ascii=False))
