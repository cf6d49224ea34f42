"""GenderBench's ``genderbench.probes.generics``: evaluators shared by several probes."""
