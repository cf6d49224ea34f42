"""The cases of a decision audit: read from CSV, checked, and rendered into prompts.

A template writes ``{column}`` for a column of the case and ``{MARKUP}`` or ``{MARKUP:form}`` for its
group (``{GENDER:name}``: a first name standing for the group, as correspondence studies do). The
group is a community of the audit's markup in its language, with the library's forms and names
(``library/data/communities``), so "women" is written "a woman", "una mujer" or "una dona" as the
template asks. Every problem (a missing column, one group only, a form a group lacks, a truth value
that is not one) is reported at once as ``PATH:LINE:COL: message`` before any call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from langbite.errors import ErrorCollector, InputErrors, suggest
from langbite.library.communities import merge, render
from langbite.library.markups import canonical
from langbite.model import Community, DecisionAudit
from langbite.probes.datafile import read_csv

SLOT = re.compile(r"\{([^{}]*)\}")
_COLUMN = re.compile(r"^[a-z_][a-z0-9_]*$")
_MARKUP = re.compile(r"^([A-Z][A-Z_]*)(?::([a-z_]+))?$")
TRUE = frozenset({"1", "yes", "true", "y", "sí", "si", "positive"})
FALSE = frozenset({"0", "no", "false", "n", "negative"})


@dataclass(frozen=True)
class Case:
    """One person: the row's columns, its group, and the correct decision when the data has one."""

    index: int
    line: int
    group: str
    fields: dict[str, str]
    truth: bool | None = None


@dataclass(frozen=True)
class DecisionPrompt:
    """A case rendered for one group: the case's own (``original``) or a counterfactual swap."""

    case: int
    group: str
    original: bool
    text: str


@dataclass(frozen=True)
class CaseSet:
    """The checked cases of an audit and its groups, in the order they first appear."""

    audit: DecisionAudit
    cases: tuple[Case, ...]
    groups: tuple[str, ...]

    def prompts(self) -> list[DecisionPrompt]:
        """Each case with its own group, then (counterfactual) with every other group, case by case."""
        out = []
        for case in self.cases:
            out.append(DecisionPrompt(case.index, case.group, True, fill(self.audit, case, case.group)))
            if self.audit.counterfactual:
                out += [DecisionPrompt(case.index, g, False, fill(self.audit, case, g))
                        for g in self.groups if g != case.group]
        return out

    def n_prompts(self) -> int:
        return len(self.cases) * (len(self.groups) if self.audit.counterfactual else 1)


def _group_text(audit: DecisionAudit, group: str, form: str | None, variant: int) -> str | None:
    return render(merge(Community(group), audit.markup, audit.language), form, audit.language, variant)


def fill(audit: DecisionAudit, case: Case, group: str) -> str:
    """The prompt of ``case`` written for ``group`` (names rotate with the case, the same for every group)."""
    def one(m: re.Match[str]) -> str:
        name = m.group(1)
        markup = _MARKUP.match(name)
        if markup:
            return _group_text(audit, group, markup.group(2), case.index) or m.group(0)
        return case.fields.get(name, m.group(0))

    return SLOT.sub(one, audit.template)


def _where(audit: DecisionAudit, key: str) -> tuple[int, int]:
    return audit.positions.get(key, (audit.line, audit.col))


def load_cases(audit: DecisionAudit) -> CaseSet:
    """Read and check an audit's cases against its template and reading; InputErrors lists every problem."""
    errors = ErrorCollector()
    path = Path(audit.cases)
    where = audit.source or str(path)
    required = [audit.protected] + ([audit.truth] if audit.truth else [])
    try:
        header, rows = read_csv(path, required, "cases file")
    except InputErrors as exc:
        raise InputErrors([*exc.errors]) from None
    groups = list(dict.fromkeys(row[audit.protected].strip() for _, row in rows if row[audit.protected].strip()))
    cases: list[Case] = []
    column = header.index(audit.protected) + 1
    truth_col = header.index(audit.truth) + 1 if audit.truth else 0
    for i, (line, row) in enumerate(rows):
        group = row[audit.protected].strip()
        if not group:
            errors.add(str(path), line, column, f"column '{audit.protected}' is empty: every case needs its group")
            continue
        truth = None
        if audit.truth:
            raw = row[audit.truth].strip().casefold()
            if raw in TRUE:
                truth = True
            elif raw in FALSE:
                truth = False
            else:
                errors.add(str(path), line, truth_col, f"column '{audit.truth}' holds {row[audit.truth]!r}; the "
                                                       "correct decision is 1 or 0 (yes/no, true/false)")
        cases.append(Case(i, line, group, {k: v.strip() for k, v in row.items()}, truth))
    if len(groups) < 2:
        errors.add(str(path), 1, column, f"column '{audit.protected}' has {len(groups)} group"
                                         f"{'s' if len(groups) != 1 else ''} ({', '.join(groups) or 'none'}); "
                                         "an audit compares at least two")
    _check_template(audit, header, groups, where, errors)
    errors.raise_if_any()
    return CaseSet(audit, tuple(cases), tuple(groups))


def _check_template(audit: DecisionAudit, header: list[str], groups: list[str], where: str,
                    errors: ErrorCollector) -> None:
    line, col = _where(audit, "template")
    label = f"decision audit '{audit.name}': template"
    markups = 0
    for m in SLOT.finditer(audit.template):
        name = m.group(1)
        markup = _MARKUP.match(name)
        if markup:
            markups += 1
            root, form = markup.group(1), markup.group(2)
            if canonical(root) != audit.markup:
                errors.add(where, line, col, f"{label}: {{{name}}} is not the audit's markup {{{audit.markup}}}")
                continue
            lacking = [g for g in groups if _group_text(audit, g, form, 0) is None]
            if lacking:
                errors.add(where, line, col, f"{label}: {{{name}}} needs the form '{form}' of "
                                             f"{', '.join(repr(g) for g in lacking)}, which the library does not "
                                             f"know in {audit.language}; use another form or give the community "
                                             "its forms")
        elif _COLUMN.match(name):
            if name not in header:
                errors.add(where, line, col, f"{label}: {{{name}}} is not a column of {Path(audit.cases).name}"
                                             f"{suggest(name, header)} (columns: {', '.join(header)})")
        else:
            errors.add(where, line, col, f"{label}: {{{name}}} is neither a column (lower case) nor the markup "
                                         f"{{{audit.markup}}} or {{{audit.markup}:form}}")
    if not markups:
        errors.add(where, line, col, f"{label}: the template never writes the case's group "
                                     f"({{{audit.markup}}}, {{{audit.markup}:form}} or {{{audit.markup}:name}}): "
                                     "every group would get the same prompt")
