"""GenderBench's ``genderbench.probes.gest``."""
