"""Loaded libraries remembered beside the response cache, so an unchanged library is not checked again.

Checking every row of the shipped library (1,302 templates: markups, forms,
oracle predictions against their schema) takes about a tenth of a second, on
every ``langbite run``. The result is a pure function of the files' bytes,
the paths they were given as (messages name them), the markups a requirement
declares, the concerns files beside them, the registered oracle operations
and the code that checks them; the key covers all of those (the code by the
content of its files), so any change loads and checks the library again.
Only a library that loaded without a file-level error is remembered; rows
left out stay left out, with their problems, exactly as a fresh load reports
them.

The entries are JSON files in the cache folder (``libraries/``): data only, never
code, so a cache folder that another user can write to cannot make langbite run
anything (a planted entry can at worst describe a library, which is read back
through the same typed constructors). An entry that cannot be read is ignored
and the library is loaded afresh.
``--no-cache`` (``RunOptions.use_cache``) skips this memo as it skips the
response cache.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path

from langbite.errors import InputError
from langbite.library.templates import Library, load_library, template_files
from langbite.model import Domain, InputType, OracleFamily, Prediction, ReflectionType, Template
from langbite.oracles import oracles
from langbite.resources import concerns_path, default_cache_dir, oracle_schema_path, source_digest

log = logging.getLogger(__name__)

# The code a library load runs: the library package with its data, the oracles and their schema, the error
# collector and the value types.
_LOADING_CODE = ("library/*.py", "library/data/*/*.json", "oracles/*.py", "schemas.py", "errors.py", "model.py",
                 "jsontext.py", "resources.py")
KEEP = 16  # entries kept; older ones are removed when a new one is written


def default_folder() -> Path:
    """Where remembered libraries are kept: ``libraries/`` in the cache folder."""
    return default_cache_dir() / "libraries"


def forget(folder: Path | None = None) -> None:
    """Remove every remembered library (``langbite cache clear``)."""
    for entry in (folder or default_folder()).glob("*.json"):
        entry.unlink(missing_ok=True)


def _key(files: list[Path], declared: dict[str, set[str]] | None) -> str:
    digest = hashlib.sha256(source_digest(*_LOADING_CODE).encode())
    digest.update(json.dumps([sorted(oracles.names()), sorted((k, sorted(v)) for k, v in (declared or {}).items())],
                             ensure_ascii=False).encode())
    folders = dict.fromkeys(f.parent for f in files)
    shipped = [oracle_schema_path(), concerns_path()]  # data the loader reads besides the files
    for path in [*shipped, *files, *(folder / "concerns.json" for folder in folders)]:
        digest.update(str(path).encode())
        digest.update(path.read_bytes() if path.is_file() else b"\0absent")
    return digest.hexdigest()


def load_library_remembered(paths: Iterable[Path], folder: Path,
                            declared: dict[str, set[str]] | None = None) -> Library:
    """:func:`load_library` (not strict), remembered in ``folder`` between runs."""
    paths = list(paths)
    try:
        files = template_files(paths)
        key = _key(files, declared)
    except Exception:  # a missing or unreadable file: the ordinary load reports it
        return load_library(paths, declared=declared)
    entry = folder / f"{key}.json"
    try:
        return decode(json.loads(entry.read_text(encoding="utf-8")))
    except FileNotFoundError:
        pass
    except Exception as exc:  # a damaged (or planted) entry is loaded afresh and written again
        log.debug("remembered library %s is unreadable (%s); loading the library again", entry, exc)
    library = load_library(paths, declared=declared)
    _remember(folder, entry, library)
    return library


def _remember(folder: Path, entry: Path, library: Library) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(encode(library), ensure_ascii=False), encoding="utf-8")
        tmp.replace(entry)
        entries = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[KEEP:]:
            old.unlink(missing_ok=True)
    except OSError as exc:  # a read-only or full cache folder only costs time
        log.debug("could not remember the library in %s: %s", folder, exc)


_FIELDS = ("template_id", "concern", "input_type", "reflection_type", "task_prefix", "prompt", "output_formatting",
           "oracle", "language", "source", "path", "line", "markups", "domain", "id_column")


def encode(library: Library) -> dict[str, object]:
    """A library as plain JSON data (predictions by their text)."""
    return {"templates": [[str(getattr(t, f)) if f in ("input_type", "reflection_type", "oracle", "domain")
                           else list(t.markups) if f == "markups" else getattr(t, f) for f in _FIELDS]
                          + [t.oracle_prediction.text] for t in library.templates],
            "excluded": [[e.path, e.line, e.col, e.message] for e in library.excluded],
            "files": [str(f) for f in library.files]}


def decode(doc: dict[str, object]) -> Library:
    """The library an entry describes, built through the typed constructors (never code from the file)."""
    templates = []
    for row in doc["templates"]:  # type: ignore[attr-defined]
        values = dict(zip(_FIELDS, row[:-1], strict=True))
        text = str(row[-1])
        prediction = json.loads(text)
        oracle = oracles.get(str(prediction["operation"])).from_prediction(prediction)
        templates.append(Template(
            template_id=str(values["template_id"]), concern=str(values["concern"]),
            input_type=InputType(values["input_type"]), reflection_type=ReflectionType(values["reflection_type"]),
            task_prefix=str(values["task_prefix"]), prompt=str(values["prompt"]),
            output_formatting=str(values["output_formatting"]), oracle=OracleFamily(values["oracle"]),
            oracle_prediction=Prediction(oracle, text), language=str(values["language"]),
            source=str(values["source"]), path=str(values["path"]), line=int(values["line"]),
            markups=tuple(str(m) for m in values["markups"]),
            domain=Domain(values["domain"]), id_column=int(values["id_column"])))
    excluded = tuple(InputError(str(p), int(line), int(col), str(m))
                     for p, line, col, m in doc["excluded"])  # type: ignore[attr-defined]
    return Library(tuple(templates), excluded, tuple(Path(str(f)) for f in doc["files"]))  # type: ignore[attr-defined]
