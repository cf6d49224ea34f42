"""The wheel's contents match the source tree.

setup.cfg lists packages by hand (the shipped data folders are mapped into
``langbite._data`` with ``package_dir``, which ``find:`` cannot express), so a
new subpackage or data file is easy to forget: the editable install used in
development still works while a plain ``pip install .`` (CI, users) misses it.
These tests compare the lists with the tree instead of building a wheel.
"""

from __future__ import annotations

import configparser
import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _config() -> configparser.ConfigParser:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    return config


def _listed_packages() -> set[str]:
    return {line.strip() for line in _config()["options"]["packages"].splitlines() if line.strip()}


def test_every_python_package_is_listed() -> None:
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "langbite").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    missing = on_disk - _listed_packages()
    assert not missing, f"add these packages to setup.cfg [options] packages: {sorted(missing)}"


def test_every_listed_package_exists() -> None:
    config = _config()
    mapped = {
        key.strip(): value.strip()
        for key, value in (
            line.split("=", 1) for line in config["options"]["package_dir"].splitlines() if "=" in line
        )
    }
    for package in _listed_packages():
        folder = ROOT / mapped.get(package, package.replace(".", "/"))
        assert folder.is_dir(), f"setup.cfg lists {package}, but {folder} does not exist"


def test_every_data_file_inside_the_package_is_shipped() -> None:
    patterns = [
        pattern.strip()
        for pattern in _config()["options.package_data"]["langbite"].split(",")
        if pattern.strip()
    ]
    package = ROOT / "langbite"
    unshipped = []
    for path in package.rglob("*"):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix in {".py", ".pyc"}:
            continue
        relative = path.relative_to(package).as_posix()
        if not any(fnmatch.fnmatch(relative, pattern) for pattern in patterns):
            unshipped.append(relative)
    assert not unshipped, f"add to setup.cfg [options.package_data] langbite: {unshipped}"
