"""``langbite validate``: check libraries and requirements models in one pass.

Every problem in every file is reported (not just the first), and each
requirements model is also planned against the libraries given (or the
shipped one), so a requirement that would select no template is caught here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from langbite.errors import ErrorCollector, InputError, InputErrors
from langbite.library.templates import load_library
from langbite.plan import build_plan
from langbite.requirements import load_requirements
from langbite.resources import data_dir, default_template_files
from langbite.selection import Selection


def _is_probe_spec(path: Path) -> bool:
    """A declarative probe spec: YAML, or JSON with an evaluator (requirements models have requirements)."""
    if path.suffix in (".yaml", ".yml"):
        return True
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and "evaluator" in doc and "requirements" not in doc


def _split(paths: Sequence[Path]) -> tuple[list[Path], list[Path], list[InputError]]:
    libraries: list[Path] = []
    models: list[Path] = []
    errors: list[InputError] = []
    for p in paths:
        if p.is_dir():
            found = sorted(q for q in p.iterdir() if q.suffix in (".csv", ".tsv"))
            libraries += found
            if not found:  # JSON files beside a library (concerns.json, …) describe it; they are not models
                jsons = sorted(q for q in p.iterdir() if q.suffix == ".json" and not q.name.endswith(".schema.json"))
                models += jsons
                if not jsons:
                    errors.append(InputError(str(p), 0, 0, "is a folder with no template library (.csv, .tsv) "
                                             "or requirements model (.json) in it"))
        elif p.suffix in (".csv", ".tsv"):
            libraries.append(p)
        elif p.suffix in (".json", ".yaml", ".yml"):
            models.append(p)
        elif not p.exists():
            errors.append(InputError(str(p), 0, 0, "no such file or folder"))
        else:
            errors.append(InputError(str(p), 0, 0, "not a template library (.csv, .tsv) or requirements model (.json)"))
    return libraries, models, errors


def validate_paths(paths: Sequence[Path], selection: Selection | None = None) -> str:
    """Validate libraries, requirements models and probe specs; one-line summary, or InputErrors with all problems.

    One pass: the requirements models are read first (their markups declare new ones for the
    libraries), every library row is checked, and each model is planned against the rows that
    could be read, so a bad header, tolerance or template does not hide the other problems.
    """
    if not paths:
        paths = [data_dir("templates"), data_dir("requirements_models")]
    libraries, models, errors = _split(paths)
    specs = [m for m in models if _is_probe_spec(m)]
    models = [m for m in models if m not in specs]
    configs = []
    for m in models:
        try:
            configs.append((m, load_requirements(m)))
        except InputErrors as exc:
            errors += exc.errors
    declared: dict[str, set[str]] = {}
    for _, config in configs:
        for req in config.requirements:
            declared.setdefault(req.concern, set()).add(req.markup)
    collector = ErrorCollector()
    library = load_library(libraries or (default_template_files() if models else []), strict=False,
                           declared=declared, errors=collector)
    errors += collector.errors
    if libraries:  # the shipped library is the user's only when they name it
        errors += library.excluded
    templates = list(library.templates)
    if specs:
        from langbite.probes.declarative import load_spec  # numpy and the probe framework: only when needed
    for spec in specs:
        try:
            load_spec(spec)
        except InputErrors as exc:
            errors += exc.errors
    for m, config in configs:
        try:
            own = templates
            if not libraries and config.requirements:  # the model's own library, as run and plan find it
                from langbite.suites.base import BuildOptions
                from langbite.suites.templates import library_paths

                paths, source = library_paths(config, BuildOptions())
                if "shipped" not in source:
                    project = load_library(paths, strict=False, declared=declared)
                    errors += project.excluded
                    own = list(project.templates)
            if own and config.requirements:
                build_plan(config, own, selection)
            if config.probes:
                from langbite.probes.entries import check_entries  # the probe framework: only when a model has probes

                check_entries(config.probes, m.parent)
        except InputErrors as exc:
            errors += exc.errors
    if errors:
        raise InputErrors(errors)
    langs = sorted({t.language for t in templates})
    return (f"ok: {len(templates)} templates in {len(libraries)} file(s) ({', '.join(langs) or 'none'}), "
            f"{len(models)} requirements model(s), {len(specs)} probe spec(s)")
