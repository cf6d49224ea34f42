"""Suites: the kinds of test a run holds (template tests, probes, …), each behind one protocol.

See :mod:`langbite.suites.base` for the protocol. The built-in suites register
here like plugins; third parties add theirs through the ``langbite.suites``
entry-point group (a callable ``(config, options) -> Suite | None``).
"""

from __future__ import annotations

from langbite.model import RequirementsModel
from langbite.suites.base import (
    Answers,
    BuildOptions,
    Context,
    Note,
    Plan,
    Suite,
    SuiteKind,
    SuiteResult,
    register,
    suites,
)

BUILT_IN = {"templates": "langbite.suites.templates", "probes": "langbite.suites.probes",
            "decisions": "langbite.suites.decisions", "prompts": "langbite.suites.prompts"}


def _load_built_in() -> None:
    from importlib import import_module

    for module in BUILT_IN.values():
        import_module(module)


def build_suites(config: RequirementsModel, options: BuildOptions) -> tuple[Suite, ...]:
    """Every registered suite built from ``config`` (those it has something for), in registration order.

    Each suite's input problems are collected, so that one run reports them all at once.
    """
    from langbite.errors import InputError, InputErrors

    _load_built_in()
    built: list[Suite] = []
    errors: list[InputError] = []
    for name in [*BUILT_IN, *(n for n in suites.names() if n not in BUILT_IN)]:  # built-ins first, in order
        try:
            suite = suites.get(name)(config, options)
        except InputErrors as exc:
            errors.extend(exc.errors)
            continue
        if suite is not None:
            built.append(suite)
    if errors:
        raise InputErrors(errors)
    return tuple(built)


__all__ = ["Answers", "BuildOptions", "Context", "Note", "Plan", "Suite", "SuiteKind", "SuiteResult",
           "build_suites", "register", "suites"]
