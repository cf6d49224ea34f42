"""The package's shape: an import graph without cycles, a leaf data model, layers that follow the pipeline.

The graph is built with ``ast`` from every import of every module of the package,
imports inside functions and under ``TYPE_CHECKING`` included: an import placed in
a function to dodge a cycle is still a dependency.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "langbite"

#: Layers from the bottom up: a module may import its own layer and those below, never one above.
#: The report's primitives (its columns and CSV writer) sit below the suites that use them; the
#: documents (workbook, page, comparisons) above them.
LAYERS: list[set[str]] = [
    {"model"},
    {"errors", "registry", "secrets", "aio", "jsonl", "resources", "vocabulary", "jsontext", "selection",
     "textfile"},
    {"schemas", "oracles"},
    {"execute"},
    {"library", "rundir"},
    {"requirements", "instantiate", "swap"},
    {"plan"},
    {"evaluate", "report.rows", "report.csv_writer", "report.cells"},
    {"probes", "decisions"},
    {"suites", "costs", "resolve"},
    {"report"},
    {"runner"},
    {"api", "ci", "frames", "validate", "augment", "project", "pytest_plugin", "llm_services", "genderbench"},
    {"cli", "langbite", "__main__", "__init__"},
]


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def graph() -> dict[str, set[str]]:
    mods = modules()

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    edges: dict[str, set[str]] = {m: set() for m in mods}
    for module, path in mods.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(parts + ([node.module] if node.module else []))
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for name in names:
                target = resolve(name) if name.startswith("langbite") else None
                if target and target != module:
                    edges[module].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def layer(module: str) -> int:
    name = module.removeprefix("langbite.").removeprefix("langbite")
    name = name or "__init__"
    for depth in (2, 1):
        key = ".".join(name.split(".")[:depth])
        for i, members in enumerate(LAYERS):
            if key in members:
                return i
    raise AssertionError(f"{module} is in no layer of tests/test_structure.py: place it")


def test_the_import_graph_has_no_cycle() -> None:
    assert cycles(graph()) == []


def test_the_data_model_imports_nothing_of_langbite() -> None:
    assert graph()["langbite.model"] == set()


def test_every_arrow_points_down_the_pipeline() -> None:
    upward = [f"{a} (layer {layer(a)}) -> {b} (layer {layer(b)})"
              for a, targets in graph().items() for b in targets if layer(b) > layer(a)]
    assert upward == []


def test_the_runner_is_a_short_orchestrator_that_names_no_suite() -> None:
    source = (PACKAGE / "runner.py").read_text(encoding="utf-8")
    assert len(source.splitlines()) < 250
    imports = {b for b in graph()["langbite.runner"] if b.startswith("langbite.suites.")}
    assert imports <= {"langbite.suites.base"}, imports
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))
    assert not re.search(r"\b(TemplateSuite|ProbeSuite|template_suite|probe_results|template_results)\b", code)


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
