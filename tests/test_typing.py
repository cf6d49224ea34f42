"""The package type-checks under mypy --strict (configured in pyproject.toml)."""

from __future__ import annotations

import pytest

from conftest import REPO


def test_mypy_strict() -> None:
    api = pytest.importorskip("mypy.api", reason="mypy comes with the 'test' extra")
    stdout, stderr, status = api.run(["--config-file", str(REPO / "pyproject.toml"), str(REPO / "langbite")])
    assert status == 0, stdout + stderr
