"""Load the CSV template library into :class:`~langbite.model.Template` records.

Our own files are comma-separated UTF-8 CSV (RFC 4180 quoting). Existing
LangBiTe libraries are tab-separated files named ``*.csv``; the delimiter is
detected from the header line, so they load unchanged. Every problem in a
file is reported at once, as ``path:line:column: message`` where the line is
the physical line the row starts on and the column is the field number.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from langbite.errors import ErrorCollector, InputErrors, suggest
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


def detect_delimiter(header_line: str, path: Path) -> str:
    if path.suffix == ".tsv":
        return "\t"
    return "\t" if header_line.count("\t") > header_line.count(",") else ","


def _decode(path: Path, errors: ErrorCollector) -> str | None:
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        errors.add(str(path), line, col, f"not UTF-8: byte 0x{data[exc.start]:02x} cannot be decoded")
        return None


def _enum(value: str, enum: type[InputType] | type[ReflectionType]) -> Any:
    try:
        return enum(value.strip().lower())
    except ValueError:
        return None


class _RowChecker:
    """Checks one file's rows; collects errors in the shared collector."""

    def __init__(self, path: Path, header: list[str], language: str | None, errors: ErrorCollector,
                 written: dict[str, str] | None = None) -> None:
        self.path, self.errors, self.language = str(path), errors, language
        self.col = {name: i for i, name in enumerate(header)}
        self.written = written or {}  # canonical column → its name in the file (LangBiTe's prompt_id)
        self.width = len(header)
        self.seen_ids: dict[tuple[str, str], int] = {}

    def err(self, line: int, column: str | int, message: str) -> None:
        col = column if isinstance(column, int) else self.col.get(column, -1) + 1
        self.errors.add(self.path, line, col, message)

    def check(self, row: list[str], line: int) -> Template | None:
        if len(row) != self.width:
            self.err(line, 0, f"row has {len(row)} fields, the header has {self.width}")
            return None
        cell = {name: row[i] for name, i in self.col.items()}
        before = len(self.errors.errors)
        lang = self._language(cell, line)
        template_id = cell["template_id"].strip()
        id_name = self.written.get("template_id", "template_id")
        if not template_id:
            self.err(line, "template_id", f"{id_name} is empty")
        elif lang:
            first = self.seen_ids.setdefault((lang, template_id), line)
            if first != line:
                self.err(line, "template_id", f"duplicate {id_name} '{template_id}' (first on line {first})")
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
            domain=domain or Domain.GENERAL,
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
        if len(roots) > 1:
            self.err(line, "prompt", f"a template may use one kind of markup, found {', '.join(roots)}")
            ok = False
        known = known_concerns().get(concern)
        for root in roots:
            if known and root not in known.markups:
                self.err(line, "prompt", f"markup {{{root}}} is not a markup of concern '{concern}'"
                         f" (known: {', '.join(known.markups)}){suggest(root, known.markups)}")
                ok = False
        return tuple(names) if ok else None


def _rows(text: str, delimiter: str) -> Iterable[tuple[int, list[str]]]:
    """Yield (start line, fields) for every non-blank row."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    start = 1
    for row in reader:
        if any(field.strip() for field in row):
            yield start, row
        start = reader.line_num + 1


_COLUMN = alias_lookup(TEMPLATE_COLUMNS)


def _header(header: list[str], path: str, errors: ErrorCollector, written: dict[str, str]) -> bool:
    names = [_COLUMN.get(h.strip().lower(), h.strip().lower()) for h in header]
    written.update({n: h.strip() for n, h in zip(names, header)})
    ok = True
    for i, name in enumerate(names, 1):
        if name not in REQUIRED and name not in OPTIONAL:
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


def load_template_file(path: Path, errors: ErrorCollector) -> list[Template]:
    """Load one library file, adding its problems to ``errors``."""
    text = _decode(path, errors)
    if text is None:
        return []
    if not text.strip():
        errors.add(str(path), 1, 0, "the file is empty: expected a header row")
        return []
    delimiter = detect_delimiter(text.split("\n", 1)[0], path)
    rows = _rows(text, delimiter)
    try:
        _, header = next(iter(rows))
    except (StopIteration, csv.Error) as exc:
        errors.add(str(path), 1, 0, f"cannot read the header: {exc}")
        return []
    written: dict[str, str] = {}
    if not _header(header, str(path), errors, written):
        return []
    checker = _RowChecker(path, header, language_of(path), errors, written)
    templates: list[Template] = []
    try:
        for line, row in rows:
            t = checker.check(row, line)
            if t is not None:
                templates.append(t)
    except csv.Error as exc:
        errors.add(str(path), 0, 0, f"malformed CSV: {exc}")
    return templates


def template_files(paths: Iterable[Path]) -> list[Path]:
    """Expand folders into their ``prompts_*.csv`` / ``*.tsv`` files."""
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(q for q in p.iterdir() if q.suffix in (".csv", ".tsv")))
        else:
            files.append(p)
    return files


def load_templates(paths: Iterable[Path]) -> list[Template]:
    """Load every template of the given files and folders, or raise InputErrors."""
    errors = ErrorCollector()
    templates: list[Template] = []
    for path in template_files(paths):
        if not path.exists():
            errors.add(str(path), 0, 0, "no such file or folder")
            continue
        templates.extend(load_template_file(path, errors))
    errors.raise_if_any()
    return templates


__all__ = ["load_templates", "load_template_file", "template_files", "InputErrors"]
