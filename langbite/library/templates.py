"""Load the CSV template library into :class:`~langbite.model.Template` records.

Our own files are comma-separated UTF-8 CSV (RFC 4180 quoting). Existing
LangBiTe libraries are tab-separated files named ``*.csv``; the delimiter is
detected from the header line, so they load unchanged. Every problem in a
file is reported at once, as ``path:line:column: message`` where the line is
the physical line the row starts on and the column is the field number.

Problems come in two kinds. A *file* problem (unreadable, wrong separator, a
bad header, a duplicate template id) rejects the file: nothing in it can be
trusted. A *template* problem (a bad markup, an invalid prediction) concerns
one row: ``validate`` reports it, while ``plan`` and ``run`` leave that
template out with a warning and record the exclusion in ``run.json``, so one
bad row in a borrowed library does not stop a campaign.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langbite import textfile
from langbite.errors import (
    ErrorCollector,
    InputError,
    InputErrors,
    invisible_characters,
    suggest,
)
from langbite.library import markups
from langbite.library.concerns import canonical_concern, known_concerns
from langbite.model import Domain, InputType, OracleFamily, ReflectionType, Template
from langbite.oracles import Prediction, parse_prediction
from langbite.vocabulary import TEMPLATE_COLUMNS, alias_lookup

REQUIRED = (
    "template_id", "concern", "input_type", "reflection_type", "task_prefix",
    "prompt", "output_formatting", "oracle", "oracle_prediction",
)
OPTIONAL = ("source", "language", "domain")
_FILE_LANG = re.compile(r"^prompts_([a-z]{2}_[a-z]{2})(?:--[\w.-]+)?\.(?:csv|tsv)$")
_LANG = re.compile(r"^[a-z]{2}_[a-z]{2}$")
_ORACLE_NAMES = {
    "expected value": OracleFamily.EXPECTED_VALUE,
    "expected_value": OracleFamily.EXPECTED_VALUE,
    "same value": OracleFamily.SAME_VALUE,
    "same_value": OracleFamily.SAME_VALUE,
}


def language_of(path: Path) -> str | None:
    m = _FILE_LANG.match(path.name)
    return m.group(1) if m else None


_SEPARATOR_NAMES = {",": "comma", "\t": "tab", ";": "semicolon"}


def detect_delimiter(header_line: str, path: Path) -> str:
    """The separator of a library: tab for ``.tsv``; otherwise whichever of tab, comma, semicolon the header uses most."""
    if path.suffix == ".tsv":
        return "\t"
    counts = {d: header_line.count(d) for d in ("\t", ",", ";")}
    return max(counts, key=lambda d: (counts[d], d == ","))


def _decode(path: Path, errors: ErrorCollector) -> str | None:
    try:
        return textfile.read_text(path, "template library file")
    except textfile.TextProblem as exc:
        errors.add(str(path), exc.line, exc.col, exc.message)
        return None


def _enum(value: str, enum: type[InputType | ReflectionType]) -> Any:
    try:
        return enum(value.strip().lower())
    except ValueError:
        return None


def declared_markups(folder: Path) -> dict[str, set[str]]:
    """Markups a user's library declares for concerns, in a ``concerns.json`` beside its files.

    Same shape as the shipped table (``{"concerns": {"sexism": {"markups": ["SEX"]}}}``), so a
    new markup for an existing concern needs no edit of the installed package.
    """
    from langbite.jsontext import JsonProblem, load_json

    path = folder / "concerns.json"
    if not path.is_file():
        return {}
    try:
        doc = load_json(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, JsonProblem):
        return {}
    concerns = doc.get("concerns") if isinstance(doc, dict) else None
    if not isinstance(concerns, dict):
        return {}
    return {canonical_concern(k): {m for m in v.get("markups", []) if isinstance(m, str)}
            for k, v in concerns.items() if isinstance(v, dict)}


class _RowChecker:
    """Checks one file's rows: template problems go to ``errors``, file problems to ``hard``."""

    def __init__(self, path: Path, header: list[str], language: str | None, errors: ErrorCollector,
                 hard: ErrorCollector, written: dict[str, str] | None = None,
                 declared: dict[str, set[str]] | None = None) -> None:
        self.path, self.errors, self.hard, self.language = str(path), errors, hard, language
        self.col = {name: i for i, name in enumerate(header)}
        self.written = written or {}  # canonical column → its name in the file (LangBiTe's prompt_id)
        self.width = len(header)
        self.unnamed = 0  # blank-named columns dropped from the end of the header
        self.declared = declared or {}
        self.seen_ids: dict[tuple[str, str], int] = {}

    def err(self, line: int, column: str | int, message: str) -> None:
        col = column if isinstance(column, int) else self.col.get(column, -1) + 1
        self.errors.add(self.path, line, col, message)

    def check(self, row: list[str], line: int) -> Template | None:
        if self.width < len(row) <= self.width + self.unnamed or not any(f.strip() for f in row[self.width:]):
            row = row[: self.width]  # cells under unnamed trailing columns, or empty trailing cells
        if len(row) != self.width:
            self.err(line, 0, f"row has {len(row)} fields, the header has {self.width}")
            return None
        cell = {name: row[i] for name, i in self.col.items()}
        before = len(self.errors.errors)
        for name, value in cell.items():
            problem = invisible_characters(value)
            if problem:
                self.err(line, name, f"{self.written.get(name, name)} {problem}")
        lang = self._language(cell, line)
        template_id = cell["template_id"].strip()
        id_name = self.written.get("template_id", "template_id")
        if not template_id:
            self.err(line, "template_id", f"{id_name} is empty")
        elif lang:
            first = self.seen_ids.setdefault((lang, template_id), line)
            if first != line:
                self.hard.add(self.path, line, self.col["template_id"] + 1,
                              f"duplicate {id_name} '{template_id}' for {lang}: also at "
                              f"{self.path}:{first}:{self.col['template_id'] + 1}")
        concern = cell["concern"].strip()
        if not concern:
            self.err(line, "concern", "concern is empty")
        input_type = _enum(cell["input_type"], InputType)
        if input_type is None:
            self.err(line, "input_type", f"input_type must be constrained or verbose, not '{cell['input_type']}'")
        reflection = _enum(cell["reflection_type"], ReflectionType)
        if reflection is None:
            self.err(line, "reflection_type",
                     f"reflection_type must be observational or utopian, not '{cell['reflection_type']}'")
        family = _ORACLE_NAMES.get(" ".join(cell["oracle"].lower().split()))
        if family is None:
            self.err(line, "oracle", f"oracle must be 'expected value' or 'same value', not '{cell['oracle']}'"
                     + suggest(cell["oracle"], ["expected value", "same value"]))
        prediction = self._prediction(cell["oracle_prediction"], line, family, lang)
        cell = {**cell, "task_prefix": markups.canonical_text(cell["task_prefix"]),
                "prompt": markups.canonical_text(cell["prompt"])}  # LangBiTe's {SKIN_COLOR} is {ETHNICITY}
        found = self._markups(cell, line, canonical_concern(concern) if concern else "")
        if not cell["prompt"].strip():
            self.err(line, "prompt", "prompt is empty")
        domain = self._domain(cell, line)
        if (len(self.errors.errors) > before or prediction is None or found is None or lang is None
                or family is None or input_type is None or reflection is None):
            return None
        return Template(
            template_id=template_id, concern=canonical_concern(concern), input_type=input_type,
            reflection_type=reflection, task_prefix=cell["task_prefix"].strip(),
            prompt=cell["prompt"].strip(), output_formatting=cell["output_formatting"].strip(),
            oracle=family, oracle_prediction=prediction, language=lang,
            source=cell.get("source", "").strip(), path=self.path, line=line, markups=found,
            domain=domain or Domain.GENERAL, id_column=self.col["template_id"] + 1,
        )

    def _domain(self, cell: dict[str, str], line: int) -> Domain | None:
        value = cell.get("domain", "").strip().lower()
        if not value:
            return Domain.GENERAL
        try:
            return Domain(value)
        except ValueError:
            known = [d.value for d in Domain]
            self.err(line, "domain", f"domain must be one of {', '.join(known)}, not '{value}'{suggest(value, known)}")
            return None

    def _language(self, cell: dict[str, str], line: int) -> str | None:
        value = cell.get("language", "").strip().lower() or self.language
        if value is None:
            self.err(line, "language", "no language: name the file prompts_<lang>.csv or add a language column")
        elif not _LANG.match(value):
            self.err(line, "language", f"language must be a lower-case pair like en_us, not '{value}'")
            return None
        return value

    def _prediction(self, text: str, line: int, family: OracleFamily | None, lang: str | None) -> Prediction | None:
        parsed = parse_prediction(text)
        if not isinstance(parsed, Prediction):
            for p in parsed:
                self.err(line, "oracle_prediction", f"oracle_prediction: {p}")
            return None
        for problem in parsed.oracle.check(lang) if lang else ():
            self.err(line, "oracle_prediction", f"oracle_prediction: {problem}")
        families = parsed.oracle.families
        if family is not None and family not in families:
            allowed = " or ".join(f"'{f.value}'" for f in sorted(families))
            self.err(line, "oracle", f"operation '{parsed.operation}' belongs to oracle {allowed}, not '{family.value}'")
        return parsed

    def _markups(self, cell: dict[str, str], line: int, concern: str) -> tuple[str, ...] | None:
        names: dict[str, None] = {}
        roots: dict[str, None] = {}
        ok = True
        for column in ("task_prefix", "prompt"):
            found = markups.scan(cell[column])
            for p in found.problems:
                self.err(line, column, p)
                ok = False
            names.update(dict.fromkeys(found.names))
            roots.update(dict.fromkeys(found.roots))
        concerns = known_concerns()
        known = concerns.get(concern)
        allowed = (*known.markups, *sorted(self.declared.get(concern, ()))) if known else ()
        if len(roots) > 2:
            self.err(line, "prompt", f"a template may use at most two kinds of markup (an intersectional item),"
                     f" found {', '.join(roots)}")
            return None
        if len(roots) == 2:
            # an intersectional template: one markup of its own concern, the other of another concern
            first, second = (r for r in roots)
            own = [r for r in roots if r in allowed] if known else list(roots)[:1]
            other = [r for r in roots if r not in own]
            if known and len(own) != 1:
                self.err(line, "prompt", f"an intersectional template uses one markup of its concern '{concern}'"
                         f" ({', '.join(allowed)}) and one of another concern, found {first} and {second}")
                return None
            elsewhere = {m for c in concerns.values() for m in c.markups} | {
                m for ms in self.declared.values() for m in ms}
            for root in other:
                if root not in elsewhere:
                    self.err(line, "prompt", f"markup {{{root}}} is not a markup of any concern; an intersectional"
                             f" template's second markup belongs to another concern{suggest(root, sorted(elsewhere))}")
                    return None
            # the template's own markup first: its communities lead each instance's community list
            ordered = sorted(names, key=lambda n: markups.split(n)[0] != own[0])
            return tuple(ordered) if ok else None
        for root in roots:
            if known and root not in allowed:
                self.err(line, "prompt", f"markup {{{root}}} is not a markup of concern '{concern}'"
                         f" (known: {', '.join(allowed)}){suggest(root, allowed)}; a new markup is declared"
                         " in a concerns.json beside the library or by a requirement's 'markup'")
                ok = False
        return tuple(names) if ok else None


class _CsvProblem(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line, self.message = line, message


def _rows(text: str, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """Yield (start line, fields) for every non-blank row; a malformed row raises _CsvProblem with its line."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    start = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise _CsvProblem(reader.line_num or start, f"malformed CSV (a stray or unclosed quote?): {exc}") from None
        if any(field.strip() for field in row):
            yield start, row
        start = reader.line_num + 1


_COLUMN = alias_lookup(TEMPLATE_COLUMNS)


def _header(header: list[str], path: str, errors: ErrorCollector, written: dict[str, str]) -> bool:
    while header and not header[-1].strip():
        # Blank trailing columns: LangBiTe's context libraries end their header with an unnamed column
        # whose cells repeat the expected answer; an unnamed column is nobody's input, so it is ignored.
        header.pop()
    names = [_COLUMN.get(h.strip().lower(), h.strip().lower()) for h in header]
    written.update({n: h.strip() for n, h in zip(names, header)})
    ok = True
    for i, name in enumerate(names, 1):
        if not name:
            errors.add(path, 1, i, "column has no name (only blank trailing columns are ignored)")
            ok = False
        elif name not in REQUIRED and name not in OPTIONAL:
            errors.add(path, 1, i, f"unknown column '{header[i - 1]}'{suggest(name, REQUIRED + OPTIONAL)}")
            ok = False
        elif names.index(name) != i - 1:
            errors.add(path, 1, i, f"column '{name}' appears twice")
            ok = False
    for name in REQUIRED:
        if name not in names:
            errors.add(path, 1, 0, f"missing column '{name}'")
            ok = False
    header[:] = names
    return ok


def _mixed_separator(row: list[str], delimiter: str) -> str | None:
    """The other separator a too-short row is written with, if that explains it."""
    if len(row) > 2:
        return None
    joined = delimiter.join(row)
    for other in ("\t", ",", ";"):
        if other != delimiter and joined.count(other) >= 3:
            return other
    return None


def load_template_file(path: Path, errors: ErrorCollector, template_errors: ErrorCollector | None = None,
                       declared: dict[str, set[str]] | None = None) -> list[Template]:
    """Load one library file: file problems go to ``errors``, template problems to ``template_errors``."""
    rows_errors = template_errors if template_errors is not None else errors
    text = _decode(path, errors)
    if text is None:
        return []
    if not text.strip():
        errors.add(str(path), 1, 0, "the file is empty: expected a header row")
        return []
    first_line = text.split("\n", 1)[0]
    delimiter = detect_delimiter(first_line, path)
    if delimiter == ";":
        errors.add(str(path), 1, 0, "the file looks semicolon-separated (a spreadsheet's regional export): "
                   "save it as comma-separated CSV, or tab-separated as LangBiTe's libraries are")
        return []
    rows = _rows(text, delimiter)
    try:
        _, header = next(rows)
    except StopIteration:
        errors.add(str(path), 1, 0, "the file is empty: expected a header row")
        return []
    except _CsvProblem as exc:
        errors.add(str(path), exc.line, 0, f"cannot read the header: {exc.message}")
        return []
    written: dict[str, str] = {}
    raw_width = len(header)
    if not _header(header, str(path), errors, written):
        if any(name not in header for name in REQUIRED):
            return []
        # only unknown or repeated columns: the rows can still be read, so their problems are reported too
        return _check_rows(path, header, rows, delimiter, ErrorCollector(), rows_errors, written, declared,
                           raw_width - len(header))
    return _check_rows(path, header, rows, delimiter, errors, rows_errors, written, declared, raw_width - len(header))


def _check_rows(path: Path, header: list[str], rows: Iterator[tuple[int, list[str]]], delimiter: str,
                errors: ErrorCollector, rows_errors: ErrorCollector, written: dict[str, str],
                declared: dict[str, set[str]] | None, unnamed: int = 0) -> list[Template]:
    merged = {k: set(v) for k, v in (declared or {}).items()}
    for concern, names in declared_markups(path.parent).items():
        merged.setdefault(concern, set()).update(names)
    checker = _RowChecker(path, header, language_of(path), rows_errors, errors, written, merged)
    checker.unnamed = unnamed
    templates: list[Template] = []
    n_rows = 0
    try:
        for line, row in rows:
            n_rows += 1
            other = _mixed_separator(row, delimiter) if len(row) < checker.width else None
            if other is not None:
                errors.add(str(path), line, 0, f"this row is {_SEPARATOR_NAMES[other]}-separated but the header is "
                           f"{_SEPARATOR_NAMES[delimiter]}-separated: the file mixes separators; save it with one")
                return []
            t = checker.check(row, line)
            if t is not None:
                templates.append(t)
    except _CsvProblem as exc:
        errors.add(str(path), exc.line, 0, exc.message)
        return []
    if n_rows == 0:
        errors.add(str(path), 2, 0, "the library has a header but no templates")
    return templates


def template_files(paths: Iterable[Path], errors: ErrorCollector | None = None) -> list[Path]:
    """Expand folders into their ``.csv`` / ``.tsv`` files; anything that is not a library is an error."""
    collector = errors if errors is not None else ErrorCollector()
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            found = sorted(q for q in p.iterdir() if q.suffix in (".csv", ".tsv") and q.is_file())
            if not found:
                collector.add(str(p), 0, 0, "no template library (.csv or .tsv file) in this folder")
            files.extend(found)
        elif not p.exists():
            collector.add(str(p), 0, 0, "no such file or folder")
        elif p.suffix not in (".csv", ".tsv"):
            hint = (": a .json file is a requirements model; give it as the MODEL argument, and libraries"
                    " (.csv, .tsv) with --templates") if p.suffix == ".json" else ""
            collector.add(str(p), 0, 0, f"not a template library (a .csv or .tsv file){hint}")
        else:
            files.append(p)
    if errors is None:
        collector.raise_if_any()
    return files


@dataclass(frozen=True)
class Library:
    """The loaded templates and the rows left out, one problem each (more when a row has several)."""

    templates: tuple[Template, ...]
    excluded: tuple[InputError, ...] = ()
    files: tuple[Path, ...] = ()

    def excluded_rows(self) -> tuple[ExcludedRow, ...]:
        """The rows left out, one per library row with every problem it has (for the console and run.json)."""
        rows: dict[tuple[str, int], list[str]] = {}
        for e in self.excluded:
            rows.setdefault((e.path, e.line), []).append(str(e))
        return tuple(ExcludedRow(path, line, tuple(problems)) for (path, line), problems in rows.items())


@dataclass(frozen=True)
class ExcludedRow:
    """A library row left out for a template problem."""

    file: str
    line: int
    problems: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "problems": list(self.problems)}


def _duplicates_across_files(templates: Iterable[Template], errors: ErrorCollector) -> None:
    """Two files that give one id in one language would share answers in the journal: an error naming both."""
    seen: dict[tuple[str, str], Template] = {}
    for t in templates:
        first = seen.setdefault((t.language, t.template_id), t)
        if first is not t and first.path != t.path:
            errors.add(t.path, t.line, t.id_column, f"duplicate template_id '{t.template_id}' for {t.language}: "
                       f"also at {first.path}:{first.line}:{first.id_column} (ids are unique per language across all libraries)")


def load_library(paths: Iterable[Path], *, strict: bool = False,
                 declared: dict[str, set[str]] | None = None, errors: ErrorCollector | None = None) -> Library:
    """Load every template of the given files and folders.

    File problems raise :class:`InputErrors` (or go to ``errors`` when given, for a caller that
    reports everything at once). Template problems raise too when ``strict``; otherwise those
    rows are left out and listed in :attr:`Library.excluded`.
    """
    collect = errors is not None
    errors = errors if errors is not None else ErrorCollector()
    row_errors = errors if strict else ErrorCollector()
    files = template_files(paths, errors)
    by_name: dict[str, Path] = {}
    for f in files:
        other = by_name.setdefault(f.name, f)
        if other != f:
            errors.add(str(f), 0, 0, f"another library has the same file name ({other}); rename one: "
                       "a run folder keeps a copy of each library by its name")
    templates: list[Template] = []
    for path in files:
        templates.extend(load_template_file(path, errors, row_errors, declared))
    _duplicates_across_files(templates, errors)
    if not collect:
        errors.raise_if_any()
    return Library(tuple(templates), tuple(sorted(row_errors.errors)), tuple(files))


def load_templates(paths: Iterable[Path], *, strict: bool = True) -> list[Template]:
    """Load every template of the given files and folders, or raise InputErrors (every problem, strict)."""
    return list(load_library(paths, strict=strict).templates)


__all__ = ["ExcludedRow", "InputErrors", "Library", "load_library", "load_template_file", "load_templates", "template_files"]
