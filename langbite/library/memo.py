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

The entries are pickles in the cache folder (``libraries/``), written by
langbite itself; an entry that cannot be read is ignored and loaded afresh.
``--no-cache`` (``RunOptions.use_cache``) skips this memo as it skips the
response cache.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
from collections.abc import Iterable
from pathlib import Path

from langbite.library.templates import Library, load_library, template_files
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
    for entry in (folder or default_folder()).glob("*.pickle"):
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
    entry = folder / f"{key}.pickle"
    try:
        with open(entry, "rb") as f:
            library = pickle.load(f)  # written by _remember below, in the user's own cache folder
        if isinstance(library, Library):
            return library
    except FileNotFoundError:
        pass
    except Exception as exc:  # a damaged entry is loaded afresh and written again
        log.debug("remembered library %s is unreadable (%s); loading the library again", entry, exc)
    library = load_library(paths, declared=declared)
    _remember(folder, entry, library)
    return library


def _remember(folder: Path, entry: Path, library: Library) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps(library, protocol=pickle.HIGHEST_PROTOCOL))
        tmp.replace(entry)
        entries = sorted(folder.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[KEEP:]:
            old.unlink(missing_ok=True)
    except OSError as exc:  # a read-only or full cache folder only costs time
        log.debug("could not remember the library in %s: %s", folder, exc)
