"""GenderBench's ``genderbench.utils``."""
