"""YAML input for probe specs: bounded, JSON-shaped, and with the line and column of every value.

YAML can describe far more than it costs to write: nine lines of aliases
expand to a billion nodes (the "billion laughs"), a few thousand ``[``
overflow the parser's recursion. So the text is read in three steps, each
bounded before the next builds anything:

1. the event stream (no recursion) is scanned for nesting deeper than
   :data:`MAX_DEPTH`;
2. the node graph is composed (aliases stay shared, nothing is expanded);
3. the graph is walked into plain JSON-shaped values (dicts with string
   keys, lists, strings, numbers, booleans, null), counting every node as it
   is expanded and stopping at :data:`MAX_NODES`.

The walk also records where each value is, so schema errors get a
``line:col`` as they do for JSON, and it rejects what JSON would not mean:
a key given twice, NaN and infinities.
"""

from __future__ import annotations

import math
from typing import Any

import yaml

from langbite.jsontext import JsonProblem, Path, json_path

MAX_DEPTH = 64
MAX_NODES = 100_000


class _Walker:
    def __init__(self, loader: yaml.SafeLoader) -> None:
        self.loader = loader
        self.nodes = 0
        self.positions: dict[Path, tuple[int, int]] = {}

    def value(self, node: yaml.Node, path: Path) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise JsonProblem(f"the document expands to more than {MAX_NODES:,} values (aliases repeat "
                              "whole subtrees); write it out or make it smaller", *_where(node))
        if len(path) > MAX_DEPTH:
            raise JsonProblem(f"nested deeper than {MAX_DEPTH} levels (a recursive alias?)", *_where(node))
        self.positions.setdefault(path, _where(node))
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            return [self.value(child, path + (i,)) for i, child in enumerate(node.value)]
        return self.scalar(node, path)

    def mapping(self, node: yaml.MappingNode, path: Path) -> dict[str, Any]:
        out: dict[str, Any] = {}
        self.loader.flatten_mapping(node)  # merge keys (<<) become ordinary entries
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise JsonProblem(f"{json_path(path)}: keys must be plain values, not collections",
                                  *_where(key_node))
            key = str(self.scalar(key_node, path))
            if key in out:
                raise JsonProblem(f"{json_path(path + (key,))}: key '{key}' appears twice in one mapping",
                                  *_where(key_node))
            self.positions.setdefault(path + (key, "<key>"), _where(key_node))
            out[key] = self.value(value_node, path + (key,))
        return out

    def scalar(self, node: yaml.Node, path: Path) -> Any:
        value = self.loader.construct_object(node, deep=True)
        if isinstance(value, float) and not math.isfinite(value):
            raise JsonProblem(f"{json_path(path)}: {node.value} is not a number here; write a number",
                              *_where(node))
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        return str(node.value)  # dates, binary and other YAML types stay the text that was written


def _where(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _check_depth(text: str) -> None:
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                where = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
                raise JsonProblem(f"nested deeper than {MAX_DEPTH} levels", *where)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


def load_yaml(text: str) -> tuple[Any, dict[Path, tuple[int, int]]]:
    """Parse one YAML document into JSON-shaped values and their positions; JsonProblem on bad input."""
    try:
        _check_depth(text)
        loader = yaml.SafeLoader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None, {}
            walker = _Walker(loader)
            return walker.value(node, ()), walker.positions
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise JsonProblem(f"invalid YAML: {problem}", *((mark.line + 1, mark.column + 1) if mark else (0, 0))) \
            from None


def locate_in(positions: dict[Path, tuple[int, int]], path: Path, key: bool = False) -> tuple[int, int]:
    """Line and column of the value at ``path`` (of its key when ``key``), or of its closest parent."""
    p = tuple(path)
    if key and p + ("<key>",) in positions:
        return positions[p + ("<key>",)]
    while p and p not in positions:
        p = p[:-1]
    return positions.get(p, (0, 0))
