"""``langbite validate``: check libraries and requirements models in one pass.

Every problem in every file is reported (not just the first), and each
requirements model is also planned against the libraries given (or the
shipped one), so a requirement that would select no template is caught here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from langbite.errors import InputError, InputErrors
from langbite.library.templates import load_templates
from langbite.model import Template
from langbite.plan import build_plan
from langbite.requirements import load_requirements
from langbite.resources import data_dir, default_template_files


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
                models += sorted(q for q in p.iterdir() if q.suffix == ".json" and not q.name.endswith(".schema.json"))
        elif p.suffix in (".csv", ".tsv"):
            libraries.append(p)
        elif p.suffix in (".json", ".yaml", ".yml"):
            models.append(p)
        elif not p.exists():
            errors.append(InputError(str(p), 0, 0, "no such file or folder"))
        else:
            errors.append(InputError(str(p), 0, 0, "not a template library (.csv, .tsv) or requirements model (.json)"))
    return libraries, models, errors


def validate_paths(paths: Sequence[Path]) -> str:
    """Validate libraries, requirements models and probe specs; one-line summary, or InputErrors with all problems."""
    if not paths:
        paths = [data_dir("templates"), data_dir("requirements_models")]
    libraries, models, errors = _split(paths)
    templates: list[Template] = []
    try:
        templates = load_templates(libraries)
    except InputErrors as exc:
        errors += exc.errors
    if models and not libraries:
        templates = load_templates(default_template_files())
    specs = [m for m in models if _is_probe_spec(m)]
    if specs:
        from langbite.probes.declarative import load_spec  # numpy and the probe framework: only when needed
    for spec in specs:
        try:
            load_spec(spec)
        except InputErrors as exc:
            errors += exc.errors
    models = [m for m in models if m not in specs]
    for m in models:
        try:
            config = load_requirements(m)
            if templates and config.requirements:
                build_plan(config, templates)
            if config.probes:
                from langbite.probes.runner import check_entries  # the probe framework: only when a model has probes

                check_entries(config.probes, m.parent)
        except InputErrors as exc:
            errors += exc.errors
    if errors:
        raise InputErrors(errors)
    langs = sorted({t.language for t in templates})
    return (f"ok: {len(templates)} templates in {len(libraries)} file(s) ({', '.join(langs) or 'none'}), "
            f"{len(models)} requirements model(s), {len(specs)} probe spec(s)")
