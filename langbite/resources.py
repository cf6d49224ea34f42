"""Where the shipped data lives, in a source checkout and in an installed wheel.

The top-level ``templates/``, ``oracles/`` and ``requirements_models/`` folders
are the source of truth. setup.cfg maps them into the wheel as
``langbite/_data/<folder>``; in a source checkout (editable install or running
from the repository) the top-level folders are used directly.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_FOLDERS = ("templates", "oracles", "requirements_models")


@cache
def data_dir(name: str) -> Path:
    """Return the folder holding the shipped ``name`` data."""
    if name not in _FOLDERS:
        raise ValueError(f"unknown data folder {name!r}")
    installed = _PACKAGE / "_data" / name
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name


def templates_dir() -> Path:
    return data_dir("templates")


def default_template_files() -> list[Path]:
    return sorted(templates_dir().glob("prompts_*.csv"))


def oracle_schema_path() -> Path:
    return data_dir("oracles") / "oracle_prediction.schema.json"


def requirements_schema_path() -> Path:
    return data_dir("requirements_models") / "requirements_model.schema.json"


def concerns_path() -> Path:
    return templates_dir() / "concerns.json"


@cache
def source_digest(*patterns: str) -> str:
    """A digest of langbite's own files matching ``patterns`` (relative to the package, e.g. ``oracles/*.py``).

    What langbite remembers between runs (readings, loaded libraries) is keyed by the content of the code
    that computed it, so any change to that code, released or not, computes it again.
    """
    digest = hashlib.sha256()
    for pattern in patterns:
        for path in sorted(_PACKAGE.glob(pattern)):
            digest.update(path.relative_to(_PACKAGE).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def default_cache_dir() -> Path:
    """The user's cache folder for langbite: ``LANGBITE_CACHE_DIR``, else the platform's (XDG on Linux)."""
    override = os.environ.get("LANGBITE_CACHE_DIR")
    if override:
        return Path(override)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("langbite", appauthor=False))


def user_data_dir() -> Path:
    """The user's data folder for langbite (fetched probe data): ``LANGBITE_DATA_DIR``, else the platform's."""
    override = os.environ.get("LANGBITE_DATA_DIR")
    if override:
        return Path(override)
    from platformdirs import user_data_dir as platform_data_dir

    return Path(platform_data_dir("langbite", appauthor=False))
