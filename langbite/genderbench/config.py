"""GenderBench's ``genderbench.config``: environment variables with their defaults."""

from __future__ import annotations

import os

_DEFAULTS = {"GENDER_BENCH_LOG_DIR": "logs/"}


def get_env_variable(name: str) -> str | None:
    """The variable's value, else GenderBench's default for it (None when it has none)."""
    return os.getenv(name, _DEFAULTS.get(name))
