"""GenderBench's ``genderbench.probes``: the probes langbite ships, with GenderBench's result shapes.

Of GenderBench's probes, langbite ships GEST and Inventories; both give the
same metric values as GenderBench's on the same answers.
"""

from langbite.genderbench.probes.gest.gest_probe import GestProbe
from langbite.genderbench.probes.inventories.inventories_probe import InventoriesProbe

__all__ = ["GestProbe", "InventoriesProbe"]
